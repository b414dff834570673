"""Small CST rewrites fixes are made of."""

from __future__ import annotations

import libcst as cst


def with_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """`call` with `name=value`: the keyword's value replaced if present, else appended."""
    args = list(call.args)
    for index, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == name:
            args[index] = arg.with_changes(value=value)
            return call.with_changes(args=args)
    no_space = cst.SimpleWhitespace("")
    equal = cst.AssignEqual(whitespace_before=no_space, whitespace_after=no_space)
    new = cst.Arg(value, keyword=cst.Name(name), equal=equal)
    if args:
        last = args[-1]
        before_first = call.whitespace_before_args
        if isinstance(last.comma, cst.Comma) and isinstance(
            before_first, cst.ParenthesizedWhitespace
        ):  # one argument a line, with a trailing comma: the new one too
            args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=before_first))
            new = new.with_changes(comma=last.comma)
        else:
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            args[-1] = last.with_changes(comma=comma)
    args.append(new)
    return call.with_changes(args=args)
