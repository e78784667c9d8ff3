"""What the judge and the launcher share: the message wire and the shared buffers.

``sandbox.channel.wire``: length-prefixed JSON messages, capped in size, every receive
with a deadline; file descriptors travel judge → launcher only. ``sandbox.channel.buffers``:
memory both processes map, behind one tiny interface with a registry (``cpu-memfd`` in
interpreter mode, ``cuda-vmm`` on the GPU). Standard library (and torch for tensor views).
"""
