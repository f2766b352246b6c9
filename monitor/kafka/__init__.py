"""How every Kafka client of the monitor connects: settings, TLS and SASL.

Shared by the worker (`monitor.stream`) and the client library (`monitor.client`), which
does not import the worker package.
"""
