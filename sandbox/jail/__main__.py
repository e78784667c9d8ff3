"""``python -m sandbox.jail``: print which isolation layers this host grants."""
from sandbox.jail.run import isolation_layers

for layer, state in isolation_layers().items():
    print(f"{layer} : {state}")
