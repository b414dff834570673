"""The test-time sentinel: a pytest plugin that watches every enqueue while the suite runs.

``pytest --joblint-sentinel=FILE`` records each job enqueued while a database
transaction of the code under test is open (and that transaction writes), and
writes the findings to FILE as a JSON array in joblint's ``--format json``
schema (code JL101). ``--joblint-sentinel-strict`` fails the test instead, and
``--joblint-sentinel-payloads`` also reports model instances and other values
a job can't carry safely (JL201, JL202). Nothing is watched unless one of the
options is given; nothing here is imported by the other runtime modules.
"""
