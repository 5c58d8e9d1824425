"""Adapters that put the supervisor inside agent hosts and frameworks.

Each host module imports its framework lazily and is installed with an extra
(``pip install 'agent-supervise[langchain]'``); the core never needs them.
"""
