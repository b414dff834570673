"""Visibility (JL501-JL502): broker timeouts shorter than the work they hide.

A visibility timeout shorter than a job's time limit, or than its countdown or ETA,
makes the broker hand the same job to a second worker (JL501, JL502). Both rules run on
the whole project's settings (`joblint.analysis.broker_view`).
"""
