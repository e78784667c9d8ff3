"""Profiler feedback: parsing ncu's raw CSV, the figures kept, and the French diagnosis.

The fixtures are ncu 2025 output recorded on the H200 (transposition 8192 × 8192 fp32,
one launch, --clock-control none), cut to the metrics that sandbox.profile reads.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.profile import LINKS, diagnose, parse_ncu_csv, profile_submission, summarise

FIX = Path(__file__).parent / "ncu_fixtures"
IDEAL = 2 * 8192 * 8192 * 4


def _profile(kind: str) -> dict:
    rows = parse_ncu_csv((FIX / f"h200-transposition-{kind}-8192.csv").read_text())
    metrics = summarise(rows)
    metrics["ideal_bytes"] = IDEAL
    return {"available": True, "metrics": metrics, "exercise": "transposition"}


def _codes(items):
    return {i["code"] for i in items}


def test_parser_reads_one_launch_with_units():
    rows = parse_ncu_csv((FIX / "h200-transposition-naive-8192.csv").read_text())
    assert len(rows) == 1 and rows[0]["Kernel Name"] == "_transposition_naive"
    m = summarise(rows)
    assert m["store_sectors_per_request"] == pytest.approx(32.0, abs=0.1)
    assert m["load_sectors_per_request"] == pytest.approx(16.0)
    assert m["dram_bytes_read"] == 367026688 and m["dram_bytes_write"] == 344775424
    assert m["stalls"]["mio_throttle"] > m["stalls"]["long_scoreboard"]


def test_parser_ignores_program_output_and_ncu_messages():
    assert parse_ncu_csv("==PROF== Connected\nbonjour\n==WARNING== x\n") == []
    assert parse_ncu_csv("") == []


def test_naive_transpose_names_uncoalesced_stores_and_excess_traffic():
    items = diagnose(_profile("naive"))
    by = {i["code"]: i for i in items}
    assert "store_non_coalesces" in by and "load_non_coalesces" not in by
    st = by["store_non_coalesces"]
    assert "32,0 secteurs" in st["detail"] and st["severity"] == "alerte"
    assert LINKS["secteurs"] in st["links"] and LINKS["naive"] in st["links"]
    ex = by["trafic_excessif"]
    assert "1,33 fois l'idéal" in ex["detail"] and "175\u00a0Mo en trop" in ex["detail"]


def test_tiled_transpose_names_what_remains():
    report = {"exercise": "transposition", "pct_of_peak": 85.0, "pct_of_copy_ceiling": 96.6,
              "copy_ceiling_gbps": 4220.0, "peak_gbps_card": 4814.0}
    items = diagnose(_profile("reference"), report=report)
    codes = _codes(items)
    assert not codes & {"store_non_coalesces", "load_non_coalesces", "trafic_excessif"}
    rest = next(i for i in items if i["code"] == "ce_qui_reste")
    assert "83,4 %" in rest["detail"] and "87,7 % du pic" in rest["detail"]
    assert LINKS["hors_atteinte"] in rest["links"]
    assert "proche_du_plafond" in codes


def test_every_link_is_one_of_the_fixed_anchors():
    anchors = set(LINKS.values())
    for kind in ("naive", "reference"):
        for item in diagnose(_profile(kind), report={"exercise": "transposition",
                                                      "pct_of_peak": 9.0, "pct_of_copy_ceiling": 10.0}):
            assert item["links"] and set(item["links"]) <= anchors
            assert item["title"] and item["detail"]


def test_small_grid_and_low_occupancy_and_bank_conflicts():
    m = {"waves_per_sm": 0.25, "grid_size": 33, "achieved_occupancy_pct": 12.0,
         "occupancy_limit_registers": 2, "occupancy_limit_shared_mem": 1,
         "shared_bank_conflicts_ld": 3_100_000, "shared_requests": 100_000}
    items = diagnose({"available": True, "metrics": m})
    by = {i["code"]: i for i in items}
    assert "0,25 vague" in by["trop_peu_de_blocs"]["detail"]
    assert "la mémoire partagée" in by["occupancy_faible"]["detail"]
    assert "31,00 par requête" in by["conflits_de_banques"]["detail"]
    assert LINKS["padding"] in by["conflits_de_banques"]["links"]


def test_without_ncu_the_feedback_says_so_and_keeps_timing():
    report = {"exercise": "transposition", "pct_of_peak": 9.3, "pct_of_copy_ceiling": 10.6}
    out = profile_submission("", "transposition", report=report, ncu="")
    assert not out["available"] and "ncu" in out["reason"]
    codes = _codes(out["diagnosis"])
    assert "sans_profileur" in codes and "loin_du_plafond" in codes


def _gpu_and_ncu() -> bool:
    try:
        import torch
        from sandbox.profile import find_ncu
        return torch.cuda.is_available() and bool(find_ncu())
    except Exception:
        return False


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu_and_ncu(), reason="pas de GPU CUDA ou pas de ncu")
def test_profile_naive_transpose_on_gpu():
    from sandbox.exercises import get_exercise

    ex = get_exercise("transposition")
    out = profile_submission(ex.source("naive"), "transposition", shape=(8192, 8192))
    assert out["available"], out["reason"]
    assert out["metrics"]["store_sectors_per_request"] > 20
    assert "store_non_coalesces" in _codes(out["diagnosis"])


def test_small_problem_is_named_from_timing_alone():
    items = diagnose(None, report={"exercise": "libre", "bytes_counted": 8 << 20,
                                   "pct_of_peak": 24.0, "pct_of_copy_ceiling": 27.0})
    by = {i["code"]: i for i in items}
    assert "8\u00a0Mo" in by["probleme_trop_petit"]["detail"]
    assert LINKS["vagues"] in by["probleme_trop_petit"]["links"]
    assert "sans_profileur" in by
