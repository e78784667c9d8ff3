"""What the card can do: peak memory bandwidth read from the card and from a datasheet table.

Public entry: ``describe_device(index=0) -> DeviceInfo``. The card's own figure is
2 × memory clock × bus width (``torch.cuda.get_device_properties`` exposes both; NVML
gives the same: 2 × 3201 MHz × 6016 bits / 8 = 4.814 TB/s on our H200). The datasheet
figure comes from ``DATASHEET_GBPS``; a card missing from it gets ``None`` ("inconnu"),
never a guess.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# Vendor datasheet memory bandwidth in GB/s (10^9 bytes/s), matched against the name the
# driver reports, most specific pattern first. Sources: NVIDIA and AMD product pages.
DATASHEET_GBPS: tuple[tuple[str, float, str], ...] = (
    (r"GH200.*144", 4900.0, "NVIDIA GH200 144 GB HBM3e"),
    (r"GH200", 4000.0, "NVIDIA GH200 96 GB HBM3"),
    (r"H200 NVL", 4800.0, "NVIDIA H200 NVL"),
    (r"H200", 4800.0, "NVIDIA H200 SXM 141 GB HBM3e"),
    (r"H100 NVL", 3900.0, "NVIDIA H100 NVL"),
    (r"H100.*PCIe", 2000.0, "NVIDIA H100 PCIe 80 GB"),
    (r"H100", 3350.0, "NVIDIA H100 SXM 80 GB HBM3"),
    (r"H20\b", 4000.0, "NVIDIA H20"),
    (r"B200", 8000.0, "NVIDIA B200"),
    (r"B100", 8000.0, "NVIDIA B100"),
    (r"A100.*80GB.*PCIe", 1935.0, "NVIDIA A100 80 GB PCIe"),
    (r"A100.*SXM.*80GB|A100.*80GB", 2039.0, "NVIDIA A100 80 GB SXM"),
    (r"A100", 1555.0, "NVIDIA A100 40 GB"),
    (r"A10G", 600.0, "NVIDIA A10G"),
    (r"A10\b", 600.0, "NVIDIA A10"),
    (r"L40S", 864.0, "NVIDIA L40S"),
    (r"L40\b", 864.0, "NVIDIA L40"),
    (r"L4\b", 300.0, "NVIDIA L4"),
    (r"V100", 900.0, "NVIDIA V100 SXM2"),
    (r"T4\b", 320.0, "NVIDIA T4"),
    (r"RTX 5090", 1792.0, "NVIDIA GeForce RTX 5090"),
    (r"RTX 4090", 1008.0, "NVIDIA GeForce RTX 4090"),
    (r"RTX 3090 Ti", 1008.0, "NVIDIA GeForce RTX 3090 Ti"),
    (r"RTX 3090", 936.0, "NVIDIA GeForce RTX 3090"),
    (r"MI300X", 5300.0, "AMD Instinct MI300X"),
    (r"MI325X", 6000.0, "AMD Instinct MI325X"),
    (r"MI250X", 3277.0, "AMD Instinct MI250X"),
)


@dataclass(frozen=True)
class DeviceInfo:
    name: str
    peak_gbps_card: float | None       # None when the card does not expose its clocks
    peak_gbps_datasheet: float | None  # None for a card missing from the table
    datasheet_label: str               # "" when unknown
    l2_bytes: int | None
    sm_count: int | None

    @property
    def peak_gbps(self) -> float | None:
        """The peak the percentages use: the card's own reading, else the datasheet."""
        return self.peak_gbps_card if self.peak_gbps_card else self.peak_gbps_datasheet

    @property
    def peak_source(self) -> str:
        if self.peak_gbps_card:
            return "lue sur la carte, horloge mémoire × largeur du bus"
        if self.peak_gbps_datasheet:
            return f"fiche technique, {self.datasheet_label}"
        return "inconnu"


def datasheet_gbps(name: str) -> tuple[float | None, str]:
    """Datasheet bandwidth for a device name, or (None, "") when the card is not in the table."""
    for pattern, gbps, label in DATASHEET_GBPS:
        if re.search(pattern, name, flags=re.IGNORECASE):
            return gbps, label
    return None, ""


def card_peak_gbps(props) -> float | None:
    """2 × memory clock × bus width from device properties; None when not exposed."""
    clock_khz = getattr(props, "memory_clock_rate", None)
    bus_bits = getattr(props, "memory_bus_width", None)
    if not clock_khz or not bus_bits:
        return None
    return 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9   # double data rate


def describe_device(index: int = 0) -> DeviceInfo:
    import torch

    props = torch.cuda.get_device_properties(index)
    sheet, label = datasheet_gbps(props.name)
    return DeviceInfo(
        name=props.name,
        peak_gbps_card=card_peak_gbps(props),
        peak_gbps_datasheet=sheet,
        datasheet_label=label,
        l2_bytes=getattr(props, "L2_cache_size", None) or None,
        sm_count=getattr(props, "multi_processor_count", None),
    )
