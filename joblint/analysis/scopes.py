"""Which names a piece of code reads or binds (for closures and loop variables)."""

from __future__ import annotations

import libcst as cst

from joblint.analysis.walk import children

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def read_names(node: cst.CSTNode) -> list[cst.Name]:
    """Names `node` reads, in source order, not counting attribute names,
    keyword-argument names or the parameters of nested lambdas."""
    found: list[cst.Name] = []
    _collect_reads(node, found)
    return found


def _collect_reads(node: cst.CSTNode, found: list[cst.Name]) -> None:
    if isinstance(node, cst.Name):
        found.append(node)
        return
    if isinstance(node, cst.Attribute):
        _collect_reads(node.value, found)
        return
    if isinstance(node, cst.Arg):
        _collect_reads(node.value, found)
        return
    if isinstance(node, cst.Lambda):
        inner: list[cst.Name] = []
        _collect_reads(node.body, inner)
        own = set(parameter_names(node.params))
        found.extend(n for n in inner if n.value not in own)
        for param in _all_params(node.params):
            if param.default is not None:
                _collect_reads(param.default, found)
        return
    for child in children(node):
        _collect_reads(child, found)


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    result = [*params.posonly_params, *params.params, *params.kwonly_params]
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            result.append(star)
    return result


def parameter_names(params: cst.Parameters) -> list[str]:
    return [p.name.value for p in _all_params(params)]


def bound_names(node: cst.CSTNode) -> set[str]:
    """Names bound anywhere in `node` (assignment and loop targets, `with ... as`,
    walrus), not looking into nested functions, classes or lambdas."""
    found: set[str] = set()
    _collect_bindings(node, found)
    return found


def _target_names(target: cst.BaseExpression, found: set[str]) -> None:
    if isinstance(target, cst.Name):
        found.add(target.value)
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            _target_names(element.value, found)
    elif isinstance(target, cst.StarredElement):
        _target_names(target.value, found)


def _collect_bindings(node: cst.CSTNode, found: set[str]) -> None:
    if isinstance(node, cst.Assign):
        for target in node.targets:
            _target_names(target.target, found)
    elif isinstance(node, cst.AnnAssign | cst.AugAssign | cst.For | cst.CompFor):
        _target_names(node.target, found)
    elif isinstance(node, cst.WithItem) and node.asname is not None:
        _target_names(node.asname.name, found)
    elif isinstance(node, cst.NamedExpr):
        _target_names(node.target, found)
    for child in children(node):
        if not isinstance(child, _SCOPES):
            _collect_bindings(child, found)
