"""sqlglot DataType nodes -> Flink DataTypes."""
from __future__ import annotations

from sqlglot import exp

from sqlengine import types as T
from sqlengine.errors import UnsupportedError

_D = exp.DType
_SIMPLE = {
    _D.BOOLEAN: "BOOLEAN", _D.TINYINT: "TINYINT", _D.SMALLINT: "SMALLINT", _D.INT: "INT",
    _D.BIGINT: "BIGINT", _D.FLOAT: "FLOAT", _D.DOUBLE: "DOUBLE", _D.DATE: "DATE",
    _D.NULL: "NULL",
}


def _params(dt: exp.DataType) -> list[int]:
    out = []
    for p in dt.expressions:
        if isinstance(p, exp.DataTypeParam):
            out.append(int(p.this.name))
    return out


def _not_null(cd: exp.ColumnDef) -> bool:
    return any(isinstance(c.args.get("kind"), exp.NotNullColumnConstraint)
               and not c.args["kind"].args.get("allow_null") for c in cd.args.get("constraints") or [])


def to_flink(dt: exp.DataType, nullable: bool = True) -> T.DataType:
    """Convert a parsed type; ``nullable`` from the surrounding NOT NULL."""
    kind = dt.this
    p = _params(dt)
    if kind in _SIMPLE:
        return T.DataType(_SIMPLE[kind], nullable)
    if kind == _D.TEXT:
        return T.STRING(nullable)
    if kind == _D.VARCHAR:
        return T.VARCHAR(p[0] if p else T.MAX_VARCHAR, nullable)
    if kind == _D.CHAR:
        return T.CHAR(p[0] if p else 1, nullable)
    if kind in (_D.DECIMAL, _D.BIGDECIMAL):
        return T.DECIMAL(p[0] if p else 10, p[1] if len(p) > 1 else 0, nullable)
    if kind in (_D.TIMESTAMP, _D.DATETIME):
        return T.TIMESTAMP(p[0] if p else 6, nullable)
    if kind in (_D.TIMESTAMPLTZ, _D.TIMESTAMPTZ):
        return T.TIMESTAMP_LTZ(p[0] if p else 6, nullable)
    if kind == _D.TIME:
        return T.TIME(p[0] if p else 0, nullable)
    if kind in (_D.VARBINARY, _D.BINARY):
        root = "VARBINARY" if kind == _D.VARBINARY else "BINARY"
        return T.DataType(root, nullable, precision=p[0] if p else (T.MAX_VARCHAR if root == "VARBINARY" else 1))
    if kind == _D.ARRAY:
        return T.ARRAY(to_flink(dt.expressions[0]), nullable)
    if kind == _D.MAP:
        return T.MAP(to_flink(dt.expressions[0]), to_flink(dt.expressions[1]), nullable)
    if kind == _D.STRUCT:
        fields = []
        for f in dt.expressions:
            if isinstance(f, exp.ColumnDef):
                fields.append((f.name, to_flink(f.args["kind"], not _not_null(f))))
        return T.ROW(fields, nullable)
    if kind == _D.USERDEFINED:  # a name that is no type (Flink's parser reads it as a user type)
        from sqlengine.errors import ValidationError
        raise ValidationError(f"Unknown identifier '{dt.args.get('kind') or dt.sql()}'")
    raise UnsupportedError(f"Unsupported data type: {dt.sql()}")


def column_type(cd: exp.ColumnDef) -> T.DataType:
    return to_flink(cd.args["kind"], not _not_null(cd))
