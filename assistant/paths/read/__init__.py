"""Reading a free answer of the reading-path dialogue, offline and without an LLM.

``read_answer`` (``reading``) reads an answer to the level or goal question: clauses and their
polarity (``clauses``), facts that cannot both be true (``clash``), spelling (``spelling``), the
prerequisite facts read again locally (``window``), the reader's words quoted back
(``quotes``); ``read_yes_no`` (``yesno``) reads an answer to a prerequisite question.
"""
