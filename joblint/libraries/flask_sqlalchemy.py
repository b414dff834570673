"""Flask-SQLAlchemy: `db = SQLAlchemy(app)`, whose `db.Model` is a declarative base."""

from __future__ import annotations

from joblint.libraries.sqlalchemy import MODEL

MODEL_ATTRIBUTE_FACTORIES = (("flask_sqlalchemy.SQLAlchemy", MODEL),)
