"""From profiler figures (and timing alone when there are none) to a French diagnosis.

Public entry: ``diagnose(profile, *, report=None) -> list[dict]``. ``profile`` is what
``profile_submission`` returns (``available`` False when ncu was missing);
``report`` is the timing record as a dict (``KernelReport.to_dict()``) or None. Each item:
``{"code", "severity" ("alerte"|"info"|"ok"), "title", "detail", "figures", "links"}``,
with ``links`` into the guide (chapter file + anchor), so the learner reads the section
that teaches the fix. Thresholds are named below with the measurement that set them.
"""
from __future__ import annotations

from typing import Any

from sandbox.french import fr_number, fr_typo

_COAL = "03-performance/02-acces-coalesces.md"
_OCC = "03-performance/03-occupancy.md"
_BANKS = "03-performance/04-conflits-de-banques.md"
_MEASURE = "03-performance/05-mesurer-correctement.md"
_PROF = "03-performance/06-profilage.md"
_TRANS = "03-performance/07-transposition.md"
LINKS = {
    "secteurs": f"{_COAL}#secteurs-de-32-octets-et-lignes-de-128-octets",
    "pas": f"{_COAL}#acces-a-pas-et-acces-desalignes",
    "vectorises": f"{_COAL}#chargements-vectorises-de-16-octets",
    "occupancy": f"{_OCC}#definition-de-l-occupancy",
    "limite_occupancy": f"{_OCC}#ce-qui-limite-l-occupancy",
    "vagues": f"{_OCC}#vagues-et-blocs-trop-peu-nombreux",
    "banques": f"{_BANKS}#trente-deux-banques-de-quatre-octets",
    "padding": f"{_BANKS}#padding-et-swizzling",
    "bande_passante": f"{_MEASURE}#bande-passante-effective",
    "metriques": f"{_PROF}#les-metriques-cles-de-nsight-compute",
    "blocages": f"{_PROF}#raisons-de-blocage-des-warps",
    "naive": f"{_TRANS}#version-naive",
    "tuilee": f"{_TRANS}#version-tuilee-en-memoire-partagee",
    "tl_trans": f"{_TRANS}#version-triton-avec-tl-trans",
    "hors_atteinte": f"{_TRANS}#pourquoi-100-est-hors-d-atteinte",
}

# A fully coalesced 4-byte access of a warp touches 4 sectors of 32 bytes per request
# (128 B / 32 B); a 16-byte vector access, 16. The naive transpose on the H200 measured
# 32 store sectors per request (67.1 M / 2.10 M); the tiled one 16 (8.4 M / 0.52 M).
_IDEAL_SECTORS_PER_REQUEST = 16.0
_UNCOALESCED_SECTORS = 20.0
# Excess DRAM traffic: the naive transpose moved 1.45x the ideal (776 MB vs 537 MB at
# 8192² fp32); the tiled one 0.95x. 1.2x is well clear of both.
_EXCESS_RATIO = 1.2
# Bank conflicts: one extra wavefront per 10 shared requests already costs; a 32-way
# conflict (column read of a 32x32 fp32 tile) gives 31 per request.
_BANK_CONFLICTS_PER_REQUEST = 0.1
_LOW_OCCUPANCY_PCT = 25.0
# A 1024 x 1024 fp32 transpose (8 MiB, fits in the H200's 60 MiB L2) reports 1.15 TB/s:
# launch latency and cache. Below 128 MiB moved the figure is not a DRAM figure.
_SMALL_PROBLEM_BYTES = 128 << 20
_FEW_WAVES = 1.0
# On the H200 the best copy reached 88 % of the 4.8 TB/s peak: a kernel within 90 % of
# that ceiling has little left to gain from its memory accesses.
_NEAR_CEILING = 0.9

_STALL_FR = {
    "long_scoreboard": "attente de la mémoire globale (long scoreboard)",
    "lg_throttle": "file des accès mémoire globale pleine (lg throttle)",
    "mio_throttle": "file mémoire partagée / instructions spéciales pleine (mio throttle)",
    "short_scoreboard": "attente de la mémoire partagée (short scoreboard)",
    "barrier": "attente à une barrière (__syncthreads / tl.debug_barrier)",
    "membar": "attente d'une barrière mémoire",
    "wait": "attente fixe entre instructions dépendantes",
    "math_pipe_throttle": "unités de calcul saturées",
    "not_selected": "prêt mais pas choisi (assez de warps : bon signe)",
    "selected": "en train d'émettre une instruction",
    "drain": "vidage des écritures en fin de bloc",
    "dispatch_stall": "blocage à l'envoi des instructions",
    "no_instruction": "cache d'instructions manqué",
    "branch_resolving": "résolution de branchement",
    "tex_throttle": "file de texture pleine",
    "imc_miss": "cache de constantes manqué",
    "sleeping": "warp endormi",
}


def _item(code, severity, title, detail, figures, *links) -> dict[str, Any]:
    return {"code": code, "severity": severity, "title": fr_typo(title),
            "detail": fr_typo(detail),
            "figures": figures, "links": [LINKS[k] for k in links]}


def _n(x: float) -> str:
    """12 345 678: French thousands separator (narrow no-break space)."""
    return fr_number(x, 0)


def _fmt_bytes(n: float) -> str:
    return f"{fr_number(n / 1e6, 0)}\u00a0Mo" if n < 1e9 else f"{fr_number(n / 1e9, 2)}\u00a0Go"


def diagnose(profile: dict[str, Any] | None, *, report: dict[str, Any] | None = None
             ) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    report = report or {}
    m = (profile or {}).get("metrics") or {}
    exercise = report.get("exercise", "") or (profile or {}).get("exercise", "")
    if not profile or not profile.get("available"):
        why = (profile or {}).get("reason") or "Nsight Compute (ncu) n'est pas disponible ici"
        items.append(_item("sans_profileur", "info", "Pas de chiffres du profileur",
                           f"{why} : le diagnostic ne s'appuie que sur le chronométrage.",
                           {}, "metriques"))
    items += _from_timing(report)
    if not m:
        return items

    st_sec, st_req = m.get("store_sectors"), m.get("store_requests")
    ld_sec, ld_req = m.get("load_sectors"), m.get("load_requests")
    ideal = m.get("ideal_bytes")
    read, written = m.get("dram_bytes_read"), m.get("dram_bytes_write")
    for kind, sec, req, word in (("écritures", st_sec, st_req, "store"),
                                 ("lectures", ld_sec, ld_req, "load")):
        if sec and req:
            spr = sec / req
            figs = {f"{word}_sectors": sec, f"{word}_requests": req,
                    "sectors_per_request": round(spr, 1)}
            if spr > _UNCOALESCED_SECTORS:
                links = ["secteurs", "pas"] + (["naive", "tuilee"] if "transpos" in exercise else [])
                items.append(_item(
                    f"{word}_non_coalesces", "alerte", f"{kind.capitalize()} non coalescées",
                    f"Les {kind} en mémoire globale touchent {fr_number(spr, 1)} secteurs de "
                    f"32 octets par requête ({_n(sec)} secteurs pour {_n(req)} requêtes), "
                    f"contre {fr_number(_IDEAL_SECTORS_PER_REQUEST, 0)} au plus pour des "
                    f"accès contigus d'un warp : les fils voisins d'un warp "
                    f"{'écrivent' if word == 'store' else 'lisent'} "
                    "à des adresses éloignées, chacun dans son propre secteur.", figs, *links))
    if ideal and read is not None and written is not None:
        moved = read + written
        ratio = moved / ideal
        figs = {"dram_bytes_read": read, "dram_bytes_write": written, "ideal_bytes": ideal,
                "ratio": round(ratio, 2)}
        if ratio > _EXCESS_RATIO:
            items.append(_item(
                "trafic_excessif", "alerte", "Trafic DRAM excessif",
                f"Le noyau a déplacé {_fmt_bytes(moved)} ({_fmt_bytes(read)} lus, "
                f"{_fmt_bytes(written)} écrits) pour {_fmt_bytes(ideal)} nécessaires, soit "
                f"{fr_number(ratio, 2)} fois l'idéal ({_fmt_bytes(moved - ideal)} en trop) : des "
                "secteurs sont chargés ou écrits plusieurs fois.",
                figs, "secteurs", "bande_passante"))
        else:
            items.append(_item("trafic_ideal", "ok", "Trafic DRAM proche de l'idéal",
                               f"{_fmt_bytes(moved)} déplacés pour {_fmt_bytes(ideal)} "
                               f"nécessaires ({fr_number(ratio, 2)} fois l'idéal).",
                               figs, "bande_passante"))
    conf = (m.get("shared_bank_conflicts_ld") or 0) + (m.get("shared_bank_conflicts_st") or 0)
    shreq = m.get("shared_requests")
    if conf and (not shreq or conf / shreq > _BANK_CONFLICTS_PER_REQUEST):
        per = f" ({fr_number(conf / shreq, 2)} par requête)" if shreq else ""
        items.append(_item("conflits_de_banques", "alerte", "Conflits de banques en mémoire partagée",
                           f"{_n(conf)} conflits de banques{per} : plusieurs fils d'un warp "
                           "visent la même banque de 4 octets à des adresses différentes.",
                           {"bank_conflicts": conf, "shared_requests": shreq},
                           "banques", "padding"))
    occ, waves = m.get("achieved_occupancy_pct"), m.get("waves_per_sm")
    if waves is not None and waves < _FEW_WAVES:
        items.append(_item("trop_peu_de_blocs", "alerte", "Trop peu de blocs pour le GPU",
                           f"La grille ne remplit que {fr_number(waves, 2)} vague sur les SM : "
                           "une partie du GPU reste inactive (problème trop petit ou blocs trop gros).",
                           {"waves_per_sm": waves, "grid_size": m.get("grid_size")},
                           "vagues"))
    if occ is not None and occ < _LOW_OCCUPANCY_PCT:
        items.append(_item("occupancy_faible", "info", "Occupancy faible",
                           f"{fr_number(occ, 0)} % des warps possibles sont actifs en moyenne : "
                           "moins de warps pour masquer la latence de la mémoire. "
                           + _occ_limit_text(m), {"achieved_occupancy_pct": occ,
                                                   "theoretical_occupancy_pct": m.get("theoretical_occupancy_pct")},
                           "occupancy", "limite_occupancy"))
    stalls = m.get("stalls") or {}
    if stalls:
        top = sorted(((k, v) for k, v in stalls.items() if k != "selected"),
                     key=lambda kv: -kv[1])[:3]
        text = " ; ".join(f"{_STALL_FR.get(k, k)} : {fr_number(v, 1)}" for k, v in top)
        items.append(_item("raisons_de_blocage", "info", "Principales raisons de blocage des warps",
                           f"Warps bloqués, en moyenne, pour chaque instruction émise : {text}.",
                           {"stalls": dict(top)}, "blocages"))
    pct = m.get("dram_throughput_pct")
    flagged = {i["code"] for i in items if i["severity"] == "alerte"}
    if pct is not None and not flagged & {"store_non_coalesces", "load_non_coalesces",
                                          "trafic_excessif"}:
        copy = report.get("copy_ceiling_gbps")
        peak = report.get("peak_gbps_card") or report.get("peak_gbps_datasheet")
        ceiling = (f" ; une simple copie atteint {fr_number(100 * copy / peak, 1)} % du pic sur cette "
                   "carte (plafond de copie)" if copy and peak else
                   " ; sur notre H200 une simple copie plafonne à 88 % du pic")
        links = ["hors_atteinte", "bande_passante", "metriques"] if "transpos" in exercise \
            else ["bande_passante", "metriques"]
        items.append(_item("ce_qui_reste", "info", "Ce qui reste : l'efficacité de la DRAM",
                           f"Accès coalescés et trafic proche de l'idéal : ce qui sépare ce noyau "
                           f"de 100 % est l'efficacité de la DRAM elle-même. ncu mesure "
                           f"{fr_number(pct, 1)} % du débit DRAM maximal pendant le "
                           f"noyau{ceiling}.",
                           {"dram_throughput_pct": pct, "copy_ceiling_gbps": copy,
                            "peak_gbps": peak}, *links))
    elif pct is not None:
        items.append(_item("debit_dram", "info", "Débit DRAM mesuré par le profileur",
                           f"{fr_number(pct, 1)} % du débit DRAM maximal soutenu pendant le noyau "
                           "(chiffre de ncu, une seule exécution, pour expliquer ; le score "
                           "vient du chronométrage).", {"dram_throughput_pct": pct}, "metriques"))
    return items


def _occ_limit_text(m: dict[str, Any]) -> str:
    lim = {k: m.get(f"occupancy_limit_{k}") for k in ("registers", "shared_mem", "warps", "blocks")}
    lim = {k: v for k, v in lim.items() if v}
    if not lim:
        return ""
    worst = min(lim, key=lim.get)
    names = {"registers": "les registres", "shared_mem": "la mémoire partagée",
             "warps": "la taille des blocs", "blocks": "le nombre de blocs par SM"}
    return f"Ce qui la limite ici : {names[worst]} ({fr_number(lim[worst], 0)} blocs par SM au plus)."


def _from_timing(report: dict[str, Any]) -> list[dict[str, Any]]:
    """What timing alone shows: distance to the copy ceiling, what remains."""
    out = []
    moved = report.get("bytes_counted")
    if moved and moved < _SMALL_PROBLEM_BYTES:
        out.append(_item("probleme_trop_petit", "info", "Problème trop petit pour le GPU",
                         f"Le noyau ne déplace que {_fmt_bytes(moved)} : moins que quelques "
                         "fois le cache L2, et trop peu de travail pour occuper tous les SM ; "
                         "le temps mesuré reflète la latence de lancement et le cache, pas la "
                         "DRAM.", {"bytes_counted": moved}, "vagues", "bande_passante"))
    pct_copy, pct_peak = report.get("pct_of_copy_ceiling"), report.get("pct_of_peak")
    if pct_copy is None or pct_peak is None:
        return out
    transpose = "transpos" in report.get("exercise", "")
    figs = {"pct_of_peak": pct_peak, "pct_of_copy_ceiling": pct_copy,
            "gbps": report.get("gbps"), "copy_ceiling_gbps": report.get("copy_ceiling_gbps")}
    if pct_copy >= _NEAR_CEILING * 100:
        links = ["hors_atteinte", "bande_passante"] if transpose else ["bande_passante"]
        out.append(_item("proche_du_plafond", "ok", "Proche du plafond de copie",
                         f"{fr_number(pct_peak, 1)} % du pic de la carte, "
                         f"{fr_number(pct_copy, 1)} % d'une simple "
                         "copie mesurée sur la même carte : ce qui reste tient à la DRAM "
                         "elle-même (rafraîchissement, changements de sens lecture/écriture), "
                         "pas au noyau.", figs, *links))
    else:
        links = ["tuilee", "tl_trans"] if transpose else ["secteurs", "bande_passante"]
        out.append(_item("loin_du_plafond", "alerte" if pct_copy < 50 else "info",
                         "Loin du plafond de copie",
                         f"{fr_number(pct_peak, 1)} % du pic de la carte, "
                         f"{fr_number(pct_copy, 1)} % d'une simple "
                         "copie de la même taille : la marge vient des accès mémoire du noyau.",
                         figs, *links))
    return out
