import java.util.*; import java.util.jar.*; import java.lang.reflect.*;
import org.apache.flink.configuration.ConfigOption;
public class Scan { public static void main(String[] a) throws Exception {
  TreeSet<String> keys = new TreeSet<>();
  for (String jar : a) { try (JarFile jf = new JarFile(jar)) { for (Enumeration<JarEntry> e = jf.entries(); e.hasMoreElements();) { String n = e.nextElement().getName();
    if (!n.endsWith(".class") || n.contains("$") || !(n.contains("Options") || n.contains("Config"))) continue;
    if (!n.startsWith("org/apache/flink/")) continue;
    String cn = n.replace('/', '.').substring(0, n.length()-6);
    try { Class<?> c = Class.forName(cn, false, Scan.class.getClassLoader());
      for (Field f : c.getDeclaredFields()) { if (!Modifier.isStatic(f.getModifiers()) || !ConfigOption.class.isAssignableFrom(f.getType())) continue;
        f.setAccessible(true); ConfigOption o = (ConfigOption) f.get(null); if (o == null) continue; keys.add(o.key());
        for (Object fk : o.fallbackKeys()) { String s = fk.toString(); int i = s.indexOf("key="); if (i>=0) keys.add(s.substring(i+4, s.indexOf(',', i))); } }
    } catch (Throwable t) {} } } }
  for (String k : keys) System.out.println(k);
}}
