"""sqlengine's version (a leaf module: the API and the shell read it)."""
__version__ = "0.1.0"
