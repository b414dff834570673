import pytest
from sqlalchemy.orm import Session

from orders.db import Base, Order, make_engine


@pytest.fixture(scope="session")
def engine():
    engine = make_engine()
    Base.metadata.drop_all(engine)
    Base.metadata.create_all(engine)
    yield engine
    Base.metadata.drop_all(engine)
    engine.dispose()


@pytest.fixture
def session(engine):
    """Each test inside a transaction the fixture rolls back; the code's
    commits become savepoints."""
    connection = engine.connect()
    outer = connection.begin()
    session = Session(bind=connection, join_transaction_mode="create_savepoint")
    yield session
    session.close()
    outer.rollback()
    connection.close()


@pytest.fixture
def an_order(session):
    session.add(Order(number="fixture"))
    session.commit()
