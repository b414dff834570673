from celery import Celery

app = Celery("billing", broker="redis://localhost:6379/0")
app.conf.broker_transport_options = {"visibility_timeout": 3630}


@app.task(time_limit=3600)
def settle():
    pass
