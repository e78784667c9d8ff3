"""Composed answers quote the guide verbatim, each sentence with its section's citation."""
from __future__ import annotations

import re

import pytest

from ingest.sentences import is_verbatim, sentences
from assistant.compose import compose
from assistant.compose.composer import PARAGRAPH_WORDS
from assistant.records import Hit

QUESTIONS = ["Pourquoi la transposition naïve est-elle lente ?", "Comment éviter les conflits de banques ?",
             "Qu'est-ce qu'un warp ?", "Combien de mémoire partagée occupe une tuile de 32 × 32 ?",
             "Pourquoi n'atteint-on jamais 100 % de la bande passante ?", "divergence"]


@pytest.mark.parametrize("question", QUESTIONS)
def test_every_quote_is_verbatim_from_its_cited_section(question, retriever, sections):
    hits = retriever.search(question)
    comp = compose(question, hits)
    assert comp.quotes, question
    by_n = {c.n: c for c in comp.citations}
    for quote in comp.quotes:
        cited = by_n[quote.n]
        assert is_verbatim(quote.text, sections[(cited.chapter_id, cited.anchor)]), quote.text
        assert quote.text in comp.text and f"[{quote.n}]" in comp.text


def test_citations_have_label_and_link(retriever):
    comp = compose("Comment éviter les conflits de banques ?", retriever.search("conflits de banques"))
    first = comp.citations[0]
    assert first.label == ("Performance · 7. Étude de cas : la transposition de matrice "
                           "› Le padding contre les conflits de banques")
    assert first.link == "corpus/03-performance/07-transposition.md#le-padding-contre-les-conflits-de-banques"
    assert "Pour approfondir" in comp.pieces[-1] and first.link in comp.pieces[-1]


def test_lead_answers_the_question(retriever):
    comp = compose("Combien de mémoire partagée occupe une tuile de 32 × 32 ?",
                   retriever.search("mémoire partagée tuile 32 × 32"))
    assert "4 Ko" in comp.quotes[0].text


def test_code_and_tables_are_never_quoted():
    text = "Une phrase du guide qui compte assez de mots.\n\n```cuda\nint x; // Pas une phrase du guide.\n```\n| a | b c d e f |"
    assert sentences(text) == ["Une phrase du guide qui compte assez de mots."]


def test_answer_is_short(retriever):
    comp = compose("warp", retriever.search("warp shuffle divergence"))
    opening, *rest = comp.text.split("\n\n")
    points = [line for line in comp.text.splitlines() if line.startswith("- ") and not line.startswith("- [")]
    assert comp.quotes and len(points) <= 3
    assert len(opening.split()) <= PARAGRAPH_WORDS + 40     # a paragraph, and at most one sentence more


def test_no_sentence_no_answer():
    assert compose("warp", []).quotes == ()


def test_numbers_follow_first_use(retriever):
    comp = compose("Qu'est-ce qu'un warp ?", retriever.search("warp shuffle divergence"))
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", "".join(comp.pieces[:-1]))]
    firsts = list(dict.fromkeys(numbers))
    assert firsts == sorted(firsts) and firsts[0] == 1


@pytest.mark.parametrize("text, expected", [
    ("Une bonne réponse ressemble à ceci : « Ma version atteint 85 %. Elle plafonne ensuite. » Fin de la phrase ici.",
     ["Une bonne réponse ressemble à ceci : « Ma version atteint 85 %. Elle plafonne ensuite. » Fin de la phrase ici."]),
    ("Le noyau lit les données (voir le chapitre 3. Tout y est dit) puis écrit le tout. Une autre phrase assez longue suit.",
     ["Le noyau lit les données (voir le chapitre 3. Tout y est dit) puis écrit le tout.",
      "Une autre phrase assez longue suit."]),
    ("La fonction `x. Y` garde ses points dans le code. Une deuxième phrase de cinq mots.",
     ["La fonction `x. Y` garde ses points dans le code.", "Une deuxième phrase de cinq mots."]),
])
def test_sentences_do_not_split_inside_quotes_parentheses_or_code(text, expected):
    assert sentences(text) == expected


def test_definition_questions_lead_with_the_definition():
    from assistant.records import Hit

    def hit(section, text, rank):
        return Hit(f"c#{rank}", "megakernels-02", "8", "Megakernels", 2, "Définition et généalogie", section,
                   section.lower(), "08-megakernels/02-definition-et-genealogie.md", text, 1 / (60 + rank), 0.9, 1.0)

    hits = [hit("Histoire", "Le mot megakernel est revenu au premier plan en 2025 avec les LLM. "
                            "Ce chapitre montre ce qu'est un megakernel et d'où il vient.", 0),
            hit("Définition", "Un megakernel est un noyau persistant unique qui exécute toute une passe avant.", 1)]
    comp = compose("Qu'est-ce qu'un megakernel ?", hits)
    assert comp.quotes[0].text.startswith("Un megakernel est un noyau persistant")


def _hits(*sections):
    """Hits of one made-up chapter: (section, text) pairs, best first."""
    from assistant.records import Hit
    return [Hit(f"c#{rank}", "performance-02", "3", "Performance", 2, "Accès mémoire coalescés", section,
                section.lower().replace(" ", "-"), "03-performance/02-acces-coalesces.md", text,
                1 / (60 + rank), 0.9, 1.0) for rank, (section, text) in enumerate(sections)]


def test_the_lead_never_announces_the_chapter():
    comp = compose("Qu'est-ce que la coalescence ?", _hits(
        ("Introduction", "Ce chapitre explique la coalescence des accès et la coalescence des écritures."),
        ("Ce que coalescer veut dire", "Un accès est dit coalescé quand les adresses des 32 threads d'un warp "
                                       "tombent dans le plus petit nombre de secteurs.")))
    assert comp.quotes[0].text.startswith("Un accès est dit coalescé")
    assert not any(q.text.startswith("Ce chapitre") for q in comp.quotes[:1])


def test_an_announced_list_is_given_or_skipped():
    text = ("Un problème de coalescence se repère par trois signaux. Le débit DRAM mesuré est faible. "
            "Les octets lus en DRAM dépassent ce que l'algorithme exige. Et le nombre de secteurs par requête "
            "s'éloigne de 4.")
    comp = compose("Comment repérer un problème de coalescence ?", _hits(("Diagnostiquer", text)))
    lead = comp.quotes[0].text
    assert lead.startswith("Un problème de coalescence se repère par trois signaux.")
    assert lead.endswith("s'éloigne de 4.") and is_verbatim(lead, text)
    listed = "Un problème de coalescence se repère par trois signaux.\n\n- Le débit est faible.\n- Autre chose."
    comp = compose("Comment repérer un problème de coalescence ?",
                   _hits(("Diagnostiquer", listed), ("Mesure", "Un problème de coalescence divise le débit "
                                                               "utile d'une copie par six sur H200.")))
    assert all("trois signaux" not in q.text for q in comp.quotes)


def test_bibliography_and_stray_bold_are_never_quoted():
    comp = compose("Qu'est-ce que la coalescence des accès ?", _hits(
        ("Sources", "- **NVIDIA, « CUDA C++ Best Practices Guide », section coalescence des accès, 2025.**"),
        ("Suite", "Ainslie et al., « GQA », EMNLP 2023.** La coalescence des accès compte beaucoup."),
        ("Ce que coalescer veut dire", "La coalescence des accès regroupe les adresses d'un warp en peu de secteurs.")))
    assert [q.text for q in comp.quotes] == ["La coalescence des accès regroupe les adresses d'un warp en peu de secteurs."]


def test_why_leads_with_the_cause():
    comp = compose("Pourquoi la transposition naïve est-elle lente ?", _hits(
        ("Version naïve", "La transposition naïve lit une matrice de 8192 × 8192 éléments en fp32. "
                          "La transposition naïve est lente parce que ses écritures à pas touchent 32 secteurs.")))
    assert "parce que" in comp.quotes[0].text


def test_figures_in_tables_are_quoted_with_their_header():
    table = ("Les chiffres des cartes du projet.\n\n| Carte | SM | L2 |\n| --- | --- | --- |\n"
             "| A100 SXM | 108 | 40 Mo |\n| H100 SXM | 132 | 50 Mo |\n")
    comp = compose("Combien de SM sur un H100 SXM ?", _hits(("Cartes", table)))
    assert comp.quotes[0].text == "| H100 SXM | 132 | 50 Mo |"
    assert "| Carte | SM | L2 |\n| --- | --- | --- |\n| H100 SXM | 132 | 50 Mo |" in comp.text
    assert f"[{comp.quotes[0].n}]" in comp.text


def test_a_question_asking_for_code_gets_the_code_block():
    text = ("L'addition de vecteurs en Triton charge deux tuiles et écrit leur somme.\n\n```python\n"
            "@triton.jit\ndef add(x, y, out, n, BLOCK: tl.constexpr):\n    pass\n```\n")
    comp = compose("Montre-moi le code de l'addition de vecteurs en Triton", _hits(("Triton", text)))
    assert comp.quotes[0].text.startswith("L'addition de vecteurs")
    assert comp.quotes[1].text.startswith("```python") and comp.quotes[1].text in text
    assert "```python\n@triton.jit" in comp.text


def test_near_duplicates_are_not_repeated():
    comp = compose("Combien de banques compte la mémoire partagée ?", _hits(
        ("Banques", "La mémoire partagée compte 32 banques de 4 octets. La mémoire partagée d'un SM compte "
                    "32 banques de 4 octets de large."),
        ("Conflits", "Deux threads qui lisent la même banque de la mémoire partagée à des adresses différentes "
                     "font un conflit de banques.")))
    texts = [q.text for q in comp.quotes]
    assert sum("32 banques" in t for t in texts) == 1, texts


def test_the_previous_answer_is_not_repeated(retriever):
    q = "Pourquoi la transposition naïve est-elle lente ?"
    first = compose(q, retriever.search(q))
    again = compose(q, retriever.search(q), shown=first.text)
    assert not {x.text for x in first.quotes} & {x.text for x in again.quotes}


def test_how_many_leads_with_the_sentence_that_counts_it():
    comp = compose("Combien de SM sur un H100 ?", _hits(
        ("Mémoire", "Le H100 offre jusqu'à 228 Ko de mémoire partagée par SM, et 227 Ko au plus par bloc."),
        ("Organisation", "Le H100 SXM compte 8 GPC pour 132 SM, le reste de la puce étant désactivé.")))
    assert "132 SM" in comp.quotes[0].text


def test_a_count_announced_mid_sentence_is_given_or_skipped():
    comp = compose("Pourquoi l'idée du megakernel revient-elle en 2025 ?", _hits(
        ("Retour", "L'idée du megakernel revient en 2025 parce que trois conditions se sont réunies.\n\n"
                   "- Les noyaux de décodage sont très courts.\n- Les modèles sont servis à petit lot."),
        ("Cause", "Le megakernel revient en 2025 parce que le décodage à petit lot est dominé par les "
                  "frontières entre noyaux.")))
    assert "trois conditions" not in comp.quotes[0].text
    assert comp.quotes[0].text.startswith("Le megakernel revient en 2025 parce que")


def test_a_sentence_that_needs_the_one_before_does_not_lead():
    comp = compose("Que fait triton.testing.do_bench ?", _hits(
        ("Mesurer", "`triton.testing.do_bench` applique ces règles pour vous sans effort. "
                    "`triton.testing.do_bench` chauffe le noyau, vide le cache L2 et rend la médiane des temps "
                    "mesurés par des événements CUDA.")))
    assert comp.quotes[0].text.startswith("`triton.testing.do_bench` chauffe le noyau")


def test_a_definition_is_found_past_a_parenthesis_and_a_placing_phrase():
    comp = compose("Que veut dire LDS dans le vocabulaire AMD ?", _hits(
        ("Portage", "Sur AMD, la LDS est plus petite : 64 Ko par CU sur MI300X."),
        ("Mémoire", "La LDS (Local Data Share) est la mémoire partagée d'AMD, avec le même rôle que `__shared__`.")))
    assert comp.quotes[0].text.startswith("La LDS (Local Data Share) est")


def test_a_two_part_question_gets_both_parts_in_the_lead():
    text = ("La mémoire partagée compte 32 banques de 4 octets sur les GPU NVIDIA récents. "
            "Un conflit survient quand deux threads d'un warp lisent deux mots différents d'une même banque.")
    comp = compose("Combien de banques compte la mémoire partagée et quand y a-t-il conflit ?",
                   _hits(("Banques", text)))
    assert comp.quotes[0].text == text and is_verbatim(comp.quotes[0].text, text)


def test_a_table_row_is_chosen_by_its_first_cell():
    table = ("Le degré du conflit selon le pas.\n\n| pas (mots) | banques distinctes | degré |\n| --- | --- | --- |\n"
             "| 2 | 16 | 2 voies |\n| 4 | 8 | 4 voies |\n| 8 | 4 | 8 voies |\n")
    comp = compose("un accès à pas de 8 mots, ça fait un conflit de combien de voies ?", _hits(("Pas", table)))
    assert comp.quotes[0].text == "| 8 | 4 | 8 voies |"


def test_why_prefers_a_cause_that_scores_near_the_best():
    comp = compose("Pourquoi spécialiser des warps producteurs et consommateurs dans un noyau ?", _hits(
        ("Spécialisation", "La spécialisation des warps donne à des warps producteurs et consommateurs d'un noyau "
                           "des rôles différents. Les warps consommateurs du noyau calculent pendant que les producteurs "
                           "chargent, si bien que la latence de la mémoire est cachée.")))
    assert "si bien que" in comp.quotes[0].text


def test_a_year_question_leads_with_a_year():
    comp = compose("En quelle année CUDA est-il apparu ?", _hits(
        ("Histoire", "CUDA a remplacé les shaders détournés du GPGPU par un vrai modèle de programmation. "
                     "CUDA a été publié en 2007, avec le G80.")))
    assert "2007" in comp.quotes[0].text


def test_a_negated_definition_does_not_lead():
    comp = compose("définition d'un megakernel, précisément ?", _hits(
        ("Le mot", "Le mot megakernel ne désigne pas un noyau simplement très long ou très gros."),
        ("Définition", "Un megakernel est un noyau GPU unique et persistant qui exécute toute la passe avant.")))
    assert comp.quotes[0].text.startswith("Un megakernel est un noyau")


def _verbatim_in(comp, hits):
    texts = {h.anchor: h.text for h in hits}
    by_n = {c.n: c for c in comp.citations}
    return all(is_verbatim(q.text, texts[by_n[q.n].anchor]) for q in comp.quotes)


def test_a_sentence_that_leans_on_the_one_before_is_quoted_with_it():
    hits = _hits(("KernelBench", "KernelBench est un banc d'essai public qui mesure les noyaux écrits par des "
                                 "modèles de langage. Il contient 250 tâches PyTorch, de l'opérateur isolé au modèle complet."),
                 ("Autre", "Les tâches de KernelBench servent aussi d'exercices gradués pour apprendre."))
    comp = compose("Combien de tâches contient KernelBench ?", hits)
    assert comp.quotes[0].text.startswith("KernelBench est un banc d'essai")
    assert comp.quotes[0].text.endswith("au modèle complet.") and _verbatim_in(comp, hits)


def test_a_sentence_naming_what_the_one_before_said_is_quoted_with_it():
    # « … casse cette chaîne »: the chain is the sentence before's, wherever the noun stands
    hits = _hits(("Scan", "Le scan chaîné fait attendre chaque bloc jusqu'à ce que son prédécesseur ait publié "
                          "son préfixe. Le décalage découplé, publié par Merrill et Garland en 2016, casse cette chaîne."))
    comp = compose("c'est quoi le décalage découplé dans un scan ?", hits)
    assert comp.quotes[0].text.startswith("Le scan chaîné fait attendre") and _verbatim_in(comp, hits)


def test_a_pronoun_opening_a_paragraph_is_quoted_with_the_paragraph_before():
    hits = _hits(("RNN persistants", "En 2016, une équipe de Baidu a présenté les RNN persistants à ICML.\n\n"
                                     "Leur solution garde les poids récurrents sur la puce, dans les registres, "
                                     "pendant de nombreux pas de temps."))
    comp = compose("Les RNN persistants gardaient quoi sur la puce ?", hits)
    assert comp.quotes[0].text.startswith("En 2016") and "Leur solution garde" in comp.quotes[0].text
    assert _verbatim_in(comp, hits)


def test_a_short_opening_that_points_at_a_context_gets_the_next_sentence():
    hits = _hits(("do_bench", "`triton.testing.do_bench` applique ces règles pour vous. La fonction chauffe le "
                              "noyau, vide le cache L2 avant chaque répétition et rend la moyenne."),
                 ("Mesures", "Toutes les mesures ont été faites avec `triton.testing.do_bench` sur un H200."))
    comp = compose("what does triton.testing.do_bench do under the hood?", hits)
    assert comp.quotes[0].text.startswith("`triton.testing.do_bench` applique ces règles pour vous. La fonction")
    assert _verbatim_in(comp, hits)


def test_a_comparison_leads_with_the_sentence_that_sets_both_sides_in_clauses():
    hits = _hits(("Chaîne", "Le passage du PTX au SASS est fait par l'assembleur `ptxas`, qui alloue les registres."),
                 ("PTX et SASS", "Le PTX est un assembleur virtuel stable ; le SASS est le code machine d'une "
                                 "architecture, celui qui s'exécute."))
    comp = compose("PTX vs SASS, c'est quoi la différence ?", hits)
    assert comp.quotes[0].text.startswith("Le PTX est un assembleur virtuel stable ; le SASS")


def test_rows_of_one_table_that_answer_different_parts_lead_together():
    table = ("Les deux projets diffèrent sur plusieurs points.\n\n"
             "| Question | Hazy Research | Mirage MPK |\n| --- | --- | --- |\n"
             "| Qui écrit le megakernel ? | des développeurs, à la main | un compilateur |\n"
             "| Licence du code | MIT | Apache |\n"
             "| Qui ordonnance les tâches ? | l'hôte, hors ligne | le GPU, à l'exécution |\n")
    hits = _hits(("Comparaison", table))
    comp = compose("Hazy Research vs Mirage MPK : qui écrit le megakernel, qui ordonnance les tâches ?", hits)
    lead = comp.pieces[0]
    assert lead.startswith("| Question | Hazy Research | Mirage MPK |")
    assert "| Qui écrit le megakernel ?" in lead and "| Qui ordonnance les tâches ?" in lead
    assert lead.index("Qui écrit") < lead.index("Qui ordonnance")   # in table order
    assert "Licence" not in lead and _verbatim_in(comp, hits)


def test_a_how_question_naming_an_api_gets_the_code_that_calls_it():
    text = ("Un descripteur de tenseur se crée sur l'hôte avec `cuTensorMapEncodeTiled`, une fois par tenseur.\n\n"
            "```c\nCUtensorMap carte;\ncuTensorMapEncodeTiled(&carte, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, ptr,\n"
            "                       dims, pas, boite, unites, CU_TENSOR_MAP_INTERLEAVE_NONE);\n```\n")
    hits = _hits(("Créer un descripteur", text))
    comp = compose("comment créer un descripteur de tenseur avec cuTensorMapEncodeTiled ?", hits)
    assert "```c\nCUtensorMap carte;" in comp.text
    plain = compose("comment créer un descripteur de tenseur ?", hits)
    assert "```c\nCUtensorMap carte;" in plain.text      # how to do it: the short block of the lead's section
    works = compose("comment fonctionne un descripteur de tenseur ?", hits)
    assert "```" not in works.text      # how it works: no code unless asked


def test_parce_que_is_a_cause():
    hits = _hits(("Débit", "Un GPU va vite sur les gros tableaux de données indépendantes."),
                 ("Pourquoi", "Un GPU va vite parce que des milliers de threads cachent la latence des accès."))
    comp = compose("Pourquoi un GPU va vite ?", hits)
    assert "parce que" in comp.quotes[0].text


def test_a_list_item_with_code_is_a_fragment():
    hits = _hits(("Synchronisations", "Une synchronisation implicite bloque le CPU :\n\n"
                  "- les opérations dont la forme dépend des données, comme `x[x > 0]`, qui doivent attendre ;\n"
                  "- l'appel `loss.item()` à chaque itération de la boucle ;\n\n"
                  "Afficher la perte avec `loss.item()` à chaque itération attend donc la fin du GPU."))
    comp = compose("pourquoi ma boucle ralentit quand j'affiche la perte avec loss.item() ?", hits)
    assert comp.quotes[0].text.startswith("Afficher la perte")


def _hit(text: str, section: str, anchor: str) -> Hit:
    return Hit(f"perf-9#{anchor}", "performance-09", "performance", "Performance", 9, "Un chapitre d'essai",
               section, anchor, "03-performance/09-essai.md", text, 1.0, 0.8, 5.0)


def test_a_short_lead_is_joined_by_the_sentence_that_follows_it():
    hits = [_hit("Le blocage en registres fait calculer à chaque thread un petit bloc de sorties. "
                 "Chaque valeur lue en mémoire partagée sert alors à plusieurs produits, ce qui divise ces lectures.",
                 "Le blocage en registres", "blocage"),
            _hit("La mémoire partagée se déclare avec le mot-clé réservé du langage pour chaque bloc.", "Autre", "autre")]
    comp = compose("Qu'est-ce que le blocage en registres ?", hits)
    opening = comp.pieces[0]
    assert opening.startswith("Le blocage en registres fait calculer") and "divise ces lectures" in opening
    assert opening.count("[1]") == 2                             # one paragraph, each sentence cited
    assert not any("divise ces lectures" in p for p in comp.pieces[1:-1])      # not repeated as a point
    assert [q.text for q in comp.quotes][:2] == sentences(hits[0].text)


def test_a_long_lead_stands_alone():
    long_lead = ("Le noyau de réduction ralentit de moitié sur les grandes entrées du banc parce que ses accès "
                 "aux entrées ne sont pas coalescés, que chaque warp lit des adresses espacées de la taille d'une "
                 "ligne entière de la matrice, et que le cache L2 ne garde plus les lignes d'un passage à l'autre.")
    hits = [_hit(long_lead, "Le constat", "constat"),
            _hit("Le noyau de réduction ralentit aussi quand les blocs sont trop petits pour le banc.", "Autre", "autre")]
    comp = compose("Pourquoi mon noyau de réduction ralentit-il sur les grandes entrées ?", hits)
    assert comp.pieces[0].count("[") == 1


def test_a_comparison_lead_on_one_side_is_completed_by_the_other_side():
    hits = [_hit("Dans l'ordonnancement ping-pong, chaque groupe traite sa propre tuile et les deux groupes alternent. "
                 "Le ping-pong cache ainsi l'épilogue derrière le calcul.", "Ping-pong", "ping"),
            _hit("Dans l'ordonnancement coopératif, les deux groupes travaillent sur la même tuile de sortie.",
                 "Coopératif", "coop")]
    comp = compose("coopératif vs ping-pong, c'est quoi la différence ?", hits)
    opening = comp.pieces[0]
    assert "ping-pong" in opening and "même tuile de sortie" in opening   # each side by its own sentence


def test_a_how_much_lead_without_a_measure_gives_way_to_one_that_has_it():
    hits = [_hit("Le coût d'un lancement de noyau se décompose en trois parts bien distinctes.", "Le coût", "cout"),
            _hit("Sur le H200, un lancement de noyau coûte 3,4 µs depuis CUDA C++.", "Mesure", "mesure")]
    comp = compose("un lancement de noyau ça coûte combien ?", hits)
    assert "3,4 µs" in comp.pieces[0]


def test_a_request_for_code_gets_the_kernel_not_the_shell_commands():
    hits = [_hit("Pour compiler du CUDA C++, il faut le CUDA Toolkit complet et son compilateur.\n\n"
                 "```bash\nexport PATH=/usr/local/cuda/bin:$PATH\n```\n", "Le toolkit", "toolkit"),
            _hit("L'addition de vecteurs en CUDA C++ tient en un noyau de trois lignes.\n\n"
                 "```cuda\n__global__ void addition(const float* a, const float* b, float* c, int n) {\n"
                 "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n```\n",
                 "La version CUDA C++", "cuda")]
    comp = compose("comment écrire une addition de vecteurs en CUDA, le code complet ?", hits)
    assert "__global__ void addition" in comp.text and "export PATH" not in comp.text
    asked = compose("quelle commande pour mettre nvcc dans le PATH ? montre", hits[:1])
    assert "export PATH" in asked.text          # a command asked for is a shell block


def test_the_opening_names_what_the_question_names():
    # « combien … MI300X vs MI355X »: a lead and its next sentence on the MI355X alone are
    # completed by the point on the MI300X.
    comp = compose("combien de CU et de bande passante sur un MI300X vs MI355X ?", _hits(
        ("CDNA 4", "Le MI355X compte 256 CU et une bande passante de 8 To/s. Sa LDS passe à 160 Kio par CU."),
        ("CDNA 3", "Les puces de calcul partagent un cache commun. "
                   "Le MI300X compte 304 CU et une bande passante de 5,3 To/s.")))
    opening = comp.pieces[0]
    assert "MI355X compte 256 CU" in opening and "MI300X compte 304 CU" in opening


def test_a_symptom_leads_with_what_fixes_it_not_a_definition():
    comp = compose("mon noyau lit des valeurs pourries dans la mémoire partagée d'un bloc voisin de temps en temps", _hits(
        ("Définition", "La mémoire partagée distribuée est l'ensemble des mémoires partagées des blocs d'un cluster."),
        ("Sûreté", "Un bloc ne doit pas se terminer tant que les blocs voisins lisent encore sa mémoire partagée.")))
    assert comp.quotes[0].text.startswith("Un bloc ne doit pas se terminer")


def test_a_sentence_announcing_its_chapter_never_leads_when_another_may():
    comp = compose("pourquoi la transposition naïve est lente ?", _hits(
        ("Introduction", "Ce chapitre montre pourquoi la transposition naïve est lente et comment la corriger."),
        ("Mesure", "La transposition naïve écrit en colonnes, des accès espacés de 32 Kio.")))
    assert not comp.quotes[0].text.startswith("Ce chapitre")


def test_the_opening_goes_on_with_the_rest_of_the_leads_paragraph_each_sentence_cited():
    comp = compose("Mon noyau avec mbarrier ne se termine jamais, pourquoi ?", _hits(
        ("Déboguer", "Une erreur de `mbarrier` se manifeste presque toujours par un noyau qui ne se termine pas. "
                     "Les causes habituelles sont un compte d'arrivées faux et une parité décalée d'une phase. "
                     "Une copie qui annonce plus d'octets qu'elle n'en apporte bloque aussi la barrière. "
                     "Ce chapitre montre ensuite comment les repérer.")))
    opening = comp.pieces[0]
    assert opening.startswith("Une erreur de `mbarrier`") and "parité décalée" in opening
    assert "bloque aussi la barrière" in opening          # the paragraph goes on, not one sentence more
    assert opening.count("[1]") == 3                      # each sentence cited
    assert "Ce chapitre" not in opening                   # an announcement ends the paragraph
    assert [q.text for q in comp.quotes[:2]] == [
        "Une erreur de `mbarrier` se manifeste presque toujours par un noyau qui ne se termine pas.",
        "Les causes habituelles sont un compte d'arrivées faux et une parité décalée d'une phase."]


def test_the_paragraph_leaves_room_for_the_figure_a_how_much_question_asks():
    long_ = " ".join(["Le mécanisme passe par un tampon intermédiaire épinglé que le pilote remplit d'abord."] * 1)
    comp = compose("Combien de Go/s gagne la mémoire épinglée ?", _hits(
        ("Mémoire épinglée", f"La mémoire épinglée évite une copie intermédiaire du pilote. {long_} "
                             "Le moteur de copie lit ensuite ce tampon par accès direct à la mémoire de l'hôte."),
        ("Mesures", "Sur le H200 du projet, la mémoire épinglée atteint 55,3 Go/s contre 8,6 Go/s.")))
    assert "55,3 Go/s" in comp.pieces[0]


def test_a_previous_answer_cited_sentence_by_sentence_is_not_said_again():
    hits = _hits(("Version naïve", "La version naïve écrit les colonnes avec un pas de N éléments. "
                                   "Chaque écriture d'un warp touche alors 32 secteurs différents. "
                                   "Sur le H200, cette version plafonne à environ 9 % de la bande passante."),
                 ("Warps", "Un warp regroupe 32 threads qui exécutent la même instruction au même moment. "
                           "Tout ce chapitre découle de cette règle."))
    first = compose("Pourquoi la transposition naïve plafonne-t-elle ?", hits)
    assert first.pieces[0].count("[1]") >= 2
    again = compose("et un warp, c'est quoi ?", hits, shown=first.text)
    assert not {q.text for q in again.quotes} & {q.text for q in first.quotes}
    assert "Tout ce chapitre" not in again.pieces[0]


def test_a_sentence_that_introduces_a_table_leads_with_the_table():
    grid = ("La grille suivante résume quand un megakernel vaut la peine d'être considéré. "
            "Il faut que toutes les conditions de la colonne de gauche soient réunies.\n\n"
            "| Plutôt oui si… | Plutôt non si… |\n| --- | --- |\n"
            "| le service est dominé par la latence | le service est dominé par le débit |\n"
            "| le modèle est figé | le modèle change souvent |\n")
    hits = [_hit(grid, "Une grille de décision", "grille"),
            _hit("Un megakernel demande des mois de travail à une équipe entraînée.", "Le coût", "cout")]
    comp = compose("dans quels cas un megakernel vaut le coup ?", hits)
    head = comp.text.split("\n\n- ")[0]
    assert head.startswith("La grille suivante") and "| le modèle est figé | le modèle change souvent |" in head
    rows = [q.text for q in comp.quotes if q.text.startswith("|")]
    assert len(rows) == 2 and all(q.n == 1 for q in comp.quotes if q.text.startswith("|"))


def test_a_sentence_ending_in_a_colon_leads_with_the_list_it_introduces():
    text = ("Les raisons de blocage les plus fréquentes dans un noyau mémoire sont les suivantes :\n\n"
            "- **long scoreboard** : le warp attend le résultat d'un accès à la mémoire globale.\n"
            "- **mio throttle** : la file de la mémoire partagée est saturée, symptôme des conflits de banques.\n")
    hits = [_hit(text, "Raisons de blocage", "raisons"),
            _hit("Nsight Compute mesure les raisons de blocage des warps sur un lancement.", "Outil", "outil")]
    comp = compose("quelles sont les raisons de blocage les plus fréquentes dans un noyau mémoire ?", hits)
    head = comp.text.split("\n\n")[0]
    assert head.startswith("Les raisons de blocage") and "* **mio throttle**" in head
    assert "**long scoreboard** : le warp attend le résultat d'un accès à la mémoire globale." in {q.text for q in comp.quotes}


def test_a_when_is_it_worth_it_question_gets_the_condition():
    hits = [_hit("La mémoire constante est un espace de 64 Ko en lecture seule pour les noyaux, déclaré avec "
                 "`__constant__`. Elle réside en mémoire globale mais est servie par un petit cache dédié.\n\n"
                 "La mémoire constante est efficace quand tous les threads d'un warp lisent la même adresse.",
                 "Mémoire constante", "constante")]
    comp = compose("When is __constant__ memory actually a good idea? (mémoire)", hits)   # as bridged
    assert "efficace quand tous les threads" in comp.pieces[0]


def test_a_which_one_question_leads_with_the_rule_of_choice():
    hits = [_hit("Le padding ajoute un mot inutilisé à chaque ligne de la tuile, et le swizzling permute les colonnes "
                 "de chaque ligne.\n\nLe padding coûte un mot par ligne.", "Padding et swizzling", "remedes"),
            _hit("Triton choisit lui-même une disposition avec swizzling quand il fait transiter une tuile.\n\n"
                 "Dès que les accès sont vectorisés ou passent par TMA, le swizzling s'impose, et le padding reste "
                 "utile ailleurs.", "Bibliothèques", "choisir")]
    head = compose("padding vs swizzling, which one should I pick?", hits).text.split("\n\n")[0]
    assert head.startswith("Dès que les accès sont vectorisés") and "Triton choisit" not in head


def test_a_ranking_is_no_definition_and_a_formula_never_leads():
    hits = [_hit("Un megakernel est l'un des codes GPU les moins portables qui soient.", "Porter", "porter"),
            _hit("Un megakernel est un noyau persistant unique qui exécute toute une passe avant.", "Définition", "def")]
    assert compose("c'est quoi un megakernel ?", hits).quotes[0].text.startswith("Un megakernel est un noyau persistant")
    formula = [_hit("\\[ m' = \\max(m, \\max_j x_j) \\] est la mise à jour du maximum courant.\n\n"
                    "Le format E5M2 plafonne à 57 344 en valeur absolue.", "Formats", "formats")]
    assert not compose("what's the max value you can store in e5m2?", formula).quotes[0].text.startswith("\\[")


def test_a_what_question_whose_lead_does_not_define_gets_the_definition():
    hits = [_hit("La loi de Little vaut pour tous les niveaux : le même raisonnement s'applique à la mémoire partagée "
                 "ou au cache L2 de la mémoire du GPU. Elle transforme une question vague en une question chiffrée.",
                 "Tous les niveaux", "niveaux"),
            _hit("La loi de Little dit que, dans un système stable, le nombre de requêtes en cours est égal au débit "
                 "multiplié par la latence.", "La loi", "loi")]
    comp = compose("what is Little's law and how does it apply to GPU memory? (loi mémoire)", hits)
    assert "le nombre de requêtes en cours est égal au débit" in comp.pieces[0]


def test_a_why_led_by_its_effect_gets_the_cause_from_the_same_section():
    # the cause scores under a point's share of the lead: it joins the opening all the same
    hits = [_hit("Sur le H200, la seule colonne de padding divise par 2,0 le temps de la transposition CUDA tuilée. "
                 "Sans padding, Nsight Compute compte 263,9 millions de conflits pour la transposition tuilée.\n\n"
                 "Lire une colonne du tableau `float tile[32][32]` provoque un conflit à 32 voies, parce que les 32 "
                 "éléments tombent tous dans la même banque.\n\n"
                 "Le programme complet de la transposition CUDA tuilée compte aussi les octets de la colonne.\n\n"
                 "La version tuilée de la transposition CUDA lit la tuile par colonne avec padding.",
                 "Le padding", "padding"),
            _hit("La transposition Triton n'a pas besoin de padding explicite.", "Triton", "triton")]
    comp = compose("pourquoi la transposition en CUDA a besoin d'une colonne de padding en plus dans la tuile", hits)
    assert "parce que les 32 éléments tombent tous dans la même banque" in comp.pieces[0]


def test_an_announcement_is_given_by_the_paragraphs_that_open_on_their_rank():
    text = ("Le chaînage de pointeurs désigne un parcours où l'adresse suivante dépend de la précédente : une liste "
            "chaînée, un arbre. Ce motif cumule deux handicaps sur GPU.\n\n"
            "Le premier handicap est la latence. Chaque étape attend un accès mémoire de plusieurs centaines de cycles.\n\n"
            "Le second handicap est la coalescence. Les threads voisins lisent des adresses éloignées.")
    comp = compose("pourquoi les listes chaînées marchent mal sur GPU ?", [_hit(text, "Chaînage", "chainage")])
    opening = comp.pieces[0]
    assert "Le premier handicap est la latence." in opening and "Le second handicap est la coalescence." in opening
    assert all(q.n == 1 for q in comp.quotes)


def test_a_sentence_quoted_with_a_context_that_points_at_a_table_is_no_point():
    text = ("La grille suivante résume la décision. Il faut que toutes les conditions soient réunies pour qu'un "
            "megakernel vaille l'effort de son écriture.\n\n"
            + "| Plutôt oui si… | Plutôt non si… |\n| --- | --- |\n" + "| petit batch | grand batch |\n" * 12)
    hits = [_hit(text, "Une grille de décision", "grille"),
            _hit("Un megakernel demande l'effort d'une équipe entraînée.", "Le coût", "cout")]
    comp = compose("un megakernel vaut-il l'effort de son écriture ?", hits)
    assert "Il faut que toutes les conditions" not in comp.text.split("Pour approfondir")[0]
