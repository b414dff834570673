"""What a library module declares about running SQL and reading ORM queries, as data.

The kinds a module may define (module-level tuples gathered by
`joblint.libraries.collect`; `joblint.knowledge.locks` merges them into the
lookups `joblint.analysis.sql`, `orm_filters`, `row_claims` and `model_keys`
read):

- `SQL_APIS` (`SqlApi`): the methods and functions that run SQL text.
- `ROW_LOCK_APIS` (`RowLockApi`): query methods that lock the rows they read.
- `QUERY_APIS` (`QueryApi`): how an ORM's query chains read, method by method.
- `MODEL_KEY_APIS` (`ModelKeyApi`): how an ORM's model classes declare the
  columns that identify one row.
- `ROW_WRITES` (`RowWrites`): how an ORM writes the row of one instance.
- `COLLECT_METHODS` (`str`): calls that put values into a collection, which
  then holds them (the locked rows followed into a list).

Names are method names (matched whatever the receiver) unless a field says
qualified names.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SqlApi:
    """How a library runs SQL written in Python strings."""

    # Methods whose string argument is SQL whatever the receiver.
    methods: tuple[str, ...] = ()
    # Those that return the rows themselves: called as a bare statement, the
    # rows are dropped.
    row_methods: tuple[str, ...] = ()
    # Those that run SQL on a cursor-like receiver whose rows are read afterwards.
    cursor_methods: tuple[str, ...] = ()
    # Reading rows from that receiver afterwards.
    result_methods: tuple[str, ...] = ()
    # Functions and classes (qualified names) whose first argument is SQL text.
    text_functions: tuple[str, ...] = ()
    # Functions (qualified names) that return their string argument's text
    # reshaped (dedented): SQL passed through them is still read.
    text_wrappers: tuple[str, ...] = ()
    # String methods that keep the text a SQL parser sees (`"...".strip()`).
    text_methods: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RowLockApi:
    """A query method that locks the rows the query reads (`select_for_update()`)."""

    method: str
    # Keywords that make the lock not wait on a locked row when truthy.
    non_waiting: tuple[str, ...]
    # The one of them that skips locked rows (what the fix adds).
    skip_keyword: str
    # The call that skips them, for messages.
    fix: str
    # Assigning an attribute of a fetched row writes it (a session that
    # flushes changed objects); otherwise the row needs a save.
    assignment_writes: bool = False
    # Keywords that make the lock shared (`FOR SHARE`) when true. Shared
    # locks don't exclude one another: skipping locked rows still lets two
    # workers take the same row, so the fix drops them.
    shared: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class QueryApi:
    """How an ORM's query chains read (`Job.objects.filter(...).first()`)."""

    # --- the chain ---
    # Methods whose keywords or comparisons filter the rows.
    filter_methods: tuple[str, ...] = ()
    # Methods whose conditions only ever remove rows: they never pin one.
    exclude_methods: tuple[str, ...] = ()
    # Methods that order the rows: a filter with one of them picks among rows.
    ordering_methods: tuple[str, ...] = ()
    # Methods that pick the next row(s) among many (one row, or a LIMIT).
    pick_next_methods: tuple[str, ...] = ()
    # Those of them that take a row count (`limit(1)` takes one row).
    limit_methods: tuple[str, ...] = ()
    # A chain ending in one of these fetches one row by its arguments.
    single_row_methods: tuple[str, ...] = ()
    # Methods that fetch one row: what they return is a row itself.
    row_fetch_methods: tuple[str, ...] = ()
    # Calls (by last name) whose first argument is the model a query reads.
    entity_calls: tuple[str, ...] = ()
    # Methods running the statement given as their first argument (a
    # session's), and the methods of what they return that give its rows
    # still (iterating `session.scalars(stmt).all()` iterates the rows).
    execute_methods: tuple[str, ...] = ()
    result_rows_methods: tuple[str, ...] = ()

    # --- conditions ---
    # Calls (by last name) whose conditions must all hold (`Q(...)`, `and_(...)`),
    # and those of which any may hold or that negate them (never one row).
    and_calls: tuple[str, ...] = ()
    or_calls: tuple[str, ...] = ()
    # Column methods meaning "IN (...)", and the other column operators (no equality).
    in_methods: tuple[str, ...] = ()
    column_operator_methods: tuple[str, ...] = ()
    # Calls (by last name) that stand for a column, not a value (`F("other")`).
    column_reference_calls: tuple[str, ...] = ()
    # The attribute of a table that holds its columns (`jobs.c.status`).
    table_columns_attributes: tuple[str, ...] = ()
    # Column names that stand for the primary key whatever the model (`pk`).
    key_aliases: tuple[str, ...] = ()

    # --- keyword lookups (`name__lt=`) ---
    lookup_separator: str = ""
    # The lookup of a keyword that names none (`name=` is `name__exact=`).
    default_lookup: str = ""
    lookups: tuple[str, ...] = ()
    # Lookups meaning "equals"; any other is a range or set condition.
    equality_lookups: tuple[str, ...] = ()
    # The lookups that pin key columns (`pk=`, `id__in=`).
    key_pin_lookups: tuple[str, ...] = ()
    # Lookups through a relation to the related row's key (`user__pk=`).
    related_key_lookups: tuple[str, ...] = ()
    # The suffix of a foreign key's column (`user_id` for `user`).
    foreign_key_suffix: str = ""

    # --- what happens to the rows ---
    # Methods of a row that write it.
    save_methods: tuple[str, ...] = ()
    # Calls that write or delete the rows they name.
    write_calls: tuple[str, ...] = ()
    # Calls that create a row.
    create_methods: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelKeyApi:
    """How an ORM's model class declares the columns that identify one row."""

    # Field keywords that make the field (or, for several primary-key fields,
    # all of them together) identify one row.
    primary_key_keyword: str = ""
    unique_keyword: str = ""
    # Field classes (by their last dotted name) that are unique by construction.
    unique_field_classes: tuple[str, ...] = ()
    # Fields whose string arguments together are the primary key.
    composite_key_classes: tuple[str, ...] = ()
    # Constraints whose string arguments (or `fields_keyword=`) identify one row;
    # one with `partial_keyword=` holds only for some rows.
    unique_constraint_classes: tuple[str, ...] = ()
    constraint_fields_keyword: str = ""
    partial_constraint_keyword: str = ""
    # An inner class of options (`class Meta:`), and its unique sets and constraints.
    options_class: str = ""
    options_unique_together: str = ""
    options_constraints: str = ""
    # The class attribute holding table constraints (`__table_args__`).
    table_args_attribute: str = ""


@dataclass(frozen=True, slots=True)
class RowWrites:
    """How an ORM writes one row: an instance's own methods, or a queryset's
    write methods after a filter that pins the key to one instance's."""

    instance_methods: frozenset[str]
    pinned_methods: frozenset[str]
    filters: frozenset[str]
    key_lookups: frozenset[str]
    # An instance's attributes holding its row's key (`order.pk`).
    key_attributes: frozenset[str] = frozenset()
    # A model's managers: `Order.objects.delete()` writes a queryset, not an instance.
    managers: frozenset[str] = frozenset()
    # How a job loads one row by the key it was handed: a query's methods
    # returning one row (`Order.objects.get(pk=order_id)`, `.filter(...).first()`)
    # and functions doing it (`get_object_or_404(Order, pk=order_id)`).
    row_loaders: frozenset[str] = frozenset()
    loader_functions: frozenset[str] = frozenset()
    # The instance's and the queryset's methods above that delete the row.
    deleting_methods: frozenset[str] = frozenset()
    # The keyword of a save naming the only fields it writes (`update_fields=`).
    only_fields_keyword: str = ""
    # An instance's methods that neither hand its row on nor change what the
    # job reads of it (`order.refresh_from_db()`); a save writes (above).
    plain_methods: frozenset[str] = frozenset()
    # A field option making every save set the field itself (`auto_now=True`):
    # a save racing another over it writes a fresh value, not a stale one.
    self_set_options: frozenset[str] = frozenset()
