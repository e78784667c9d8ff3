"""Finding the guide's passages for a question: hybrid retrieval (``retrieve``), the question
analysed once with its English bridge (``query``), whether the guide answers it
(``relevance``), and word search for the viewer (``guide_search``)."""
