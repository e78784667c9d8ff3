"""The figures of a timed run and its verdict, in French.

Public entries: ``fill_figures(report, info)`` turns the judge's median into GB/s,
percentages of the peak and of the copy ceiling, and rejects a time under the physical
floor (bytes / fastest peak); ``verdict(report, threshold)`` writes the exercise's
verdict; ``quantile`` is numpy's linear interpolation. Numbers are written with a French
decimal comma (``sandbox.french.fr_number`` when present).
"""
from __future__ import annotations

from sandbox.records import Fault, KernelReport


def fr(x: float, decimals: int = 1) -> str:
    try:
        from sandbox.french import fr_number
    except ImportError:
        return f"{x:.{decimals}f}".replace(".", ",")
    return fr_number(x, decimals)


def quantile(sorted_vals: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    if len(sorted_vals) == 1:
        return sorted_vals[0]
    pos = q * (len(sorted_vals) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (pos - lo)


def fill_figures(report: KernelReport, info) -> None:
    from sandbox.exercises import fmt_int

    secs = report.median_us * 1e-6
    report.gbps = report.bytes_counted / secs / 1e9
    if report.flops:
        report.tflops = report.flops / secs / 1e12
    peak = info.peak_gbps
    report.peak_source = info.peak_source
    if peak:
        report.pct_of_peak = 100.0 * report.gbps / peak
    if report.copy_ceiling_gbps:
        report.pct_of_copy_ceiling = 100.0 * report.gbps / report.copy_ceiling_gbps
    fastest = max([p for p in (info.peak_gbps_card, info.peak_gbps_datasheet) if p] or [0.0])
    if fastest:
        report.floor_us = report.bytes_counted / (fastest * 1e9) * 1e6
        big = report.bytes_counted >= 2 * (info.l2_bytes or 0)   # else L2 may hold the data
        # 2 % above the peak: the widest margin event timing has shown us on 0.5 ms.
        if big and report.gbps > 1.02 * fastest:
            raise Fault("impossible_time",
                        f"temps impossible : {fr(report.median_us)} µs pour "
                        f"{fmt_int(report.bytes_counted)} octets, soit {report.gbps:.0f} Go/s, "
                        f"au-dessus de la crête de la carte ({fastest:.0f} Go/s) ; le plancher "
                        f"physique est {fr(report.floor_us)} µs. Le travail a échappé au "
                        f"chronomètre.")


# (p90 - p10) / median above which the report says the timing is dispersed. On the H200
# steady runs spread at most 1.1 % (4.4 % for a 53 µs kernel); the row-sum reductions
# sometimes ran up to 34 % wide, part of their timed calls at 245-255 µs and the rest at
# 300-400 µs, at constant clocks and power (bench/results/2026-11-29-reduction-stability-h200.md).
_SPREAD_WARN = 0.10


def _spread_text(report: KernelReport) -> str:
    """A French warning when the timed batches disagree, or ""."""
    med, lo, hi = report.median_us, report.p10_us, report.p90_us
    if not (med and lo is not None and hi is not None) or (hi - lo) / med <= _SPREAD_WARN:
        return ""
    return (f" Attention : mesures dispersées (p10 {fr(lo)} µs, p90 {fr(hi)} µs, soit "
            f"{100 * (hi - lo) / med:.0f} % de la médiane) ; relancez la soumission avant de "
            f"conclure.")


def _pct(v: float) -> str:
    return f"{v:.0f}" if float(v).is_integer() else fr(v)


def verdict(report: KernelReport, threshold: float | None) -> None:
    report.threshold_pct = threshold
    if report.mode == "interpreter":
        report.verdict = "not_timed"
        report.verdict_text = ("Juste. Vérification seulement, dans l'interpréteur Triton sur "
                               "CPU : aucun chiffre de débit (il faut un GPU pour cela).")
    elif threshold is None:
        report.verdict = "no_target"
        report.verdict_text = "Juste. Pas d'objectif de débit pour cet exercice."
    elif report.pct_of_peak is None:
        report.verdict = "no_target"
        report.verdict_text = ("Juste, mais la crête de cette carte est inconnue : pas de "
                               "verdict sur le débit.")
    elif report.pct_of_peak > threshold:
        report.verdict = "pass"
        report.verdict_text = (f"Réussi : {_pct(report.pct_of_peak)} % de la crête de la carte "
                               f"(objectif : plus de {_pct(threshold)} %).")
    else:
        report.verdict = "fail"
        report.verdict_text = (f"Juste mais trop lent : {_pct(report.pct_of_peak)} % de la crête "
                               f"de la carte (objectif : plus de {_pct(threshold)} %).")
    if not report.correctness_judged:
        # free mode: the inputs and the reference are the submission's own
        report.verdict_text = report.verdict_text.replace(
            "Juste", "Déclaré juste par votre module (mode libre : Tuile ne peut pas vérifier "
            "une référence qui vient de la soumission)", 1)
        if report.gbps is not None:
            report.verdict_text += " Chiffre non vérifié : les valeurs n'ont pas été jugées."
    if report.mode == "gpu" and report.verdict in ("pass", "fail", "no_target"):
        report.verdict_text += _spread_text(report)
