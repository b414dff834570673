import redis

r = redis.Redis()


def rebuild():
    with r.lock("rebuild"):  # expect: JL402
        pass
