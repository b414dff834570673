from django.db import models


class Tag(models.Model):
    name = models.CharField(max_length=40)


class Customer(models.Model):
    email = models.CharField(max_length=100, unique=True)


class Order(models.Model):
    number = models.CharField(max_length=20)
    total = models.IntegerField(default=0)
    tags = models.ManyToManyField(Tag)
