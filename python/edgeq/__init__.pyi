# Type stubs of the edgeq package (the names in edgeq.__all__).
import os
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

PathLike = Union[str, "os.PathLike[str]"]
Frame = npt.NDArray[np.uint8]  # HxWx3, BGR, C-contiguous
Images = Union[PathLike, Sequence[Union[PathLike, Frame]]]
Progress = Union[bool, None, Callable[[str, str, int, int, str], Optional[bool]]]

class Error(Exception): ...
class Cancelled(Error): ...

class Model:
    def __init__(self, source: Union[PathLike, bytes, Any, "Model"],
                 name: Optional[str] = ...) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def sha256(self) -> str: ...
    @property
    def inputs(self) -> List[Dict[str, Any]]: ...
    @property
    def outputs(self) -> List[Dict[str, Any]]: ...
    def summary(self) -> str: ...
    def to_bytes(self) -> bytes: ...

class Stats:
    report: Dict[str, Any]  # set by calibrate()
    @staticmethod
    def load(path: PathLike) -> "Stats": ...
    @staticmethod
    def merge(shards: Sequence["Stats"]) -> "Stats": ...
    def save(self, path: PathLike) -> None: ...
    @property
    def model_sha256(self) -> str: ...
    @property
    def preprocessing(self) -> str: ...
    @property
    def images(self) -> int: ...
    @property
    def values(self) -> int: ...

class QuantizedModel:
    def save(self, path: PathLike, encodings: Optional[PathLike] = ...,
             encodings_version: str = ...) -> None: ...
    def to_bytes(self) -> bytes: ...
    def encodings_json(self, version: str = ...) -> str: ...
    @property
    def model(self) -> Model: ...
    @property
    def summary(self) -> Dict[str, Any]: ...
    @property
    def repair(self) -> Dict[str, Any]: ...
    @property
    def search(self) -> Dict[str, Any]: ...
    @property
    def warnings(self) -> List[str]: ...

class CompareOutput:
    name: str
    rel_l2: float
    cosine: float
    max_abs: float
    @property
    def ref_channels(self) -> List[Dict[str, float]]: ...
    @property
    def test_channels(self) -> List[Dict[str, float]]: ...
    @property
    def diverging_channels(self) -> Optional[Tuple[int, int]]: ...

class CompareReport:
    images: int
    outputs: List[CompareOutput]
    detections: bool
    pose: bool
    ref_detections: int
    test_detections: int
    matched: int
    extra: int
    missing: int
    match_rate: Optional[float]
    box_px: float
    kpt_px: float
    score_abs: float
    score_bias: float
    labelled: bool
    ref_box_map50_95: float
    test_box_map50_95: float
    ref_pose_map50_95: float
    test_pose_map50_95: float
    def to_dict(self) -> Dict[str, Any]: ...

class BenchReport:
    model: str
    workers: int
    threads: int
    exec: str
    emulate: str
    simd: str
    runs: int
    warmup: int
    min_ms: float
    median_ms: float
    p95_ms: float
    plan_ms: float
    samples_ms: List[float]
    host_decode_median_ms: float
    graph_median_ms: float
    throughput_ms_per_run: float
    peak_rss_bytes: int
    arena_bytes: int
    weight_bytes: int
    input_bytes_per_frame: int
    output_bytes_per_frame: int
    quantized_io: bool
    @property
    def peak(self) -> Dict[str, Any]: ...
    fp32_gflop: float
    int8_gop: float
    achieved_gops: float
    peak_fraction: float
    @property
    def ops(self) -> List[Dict[str, Any]]: ...
    @property
    def steps(self) -> List[Dict[str, Any]]: ...
    notices: List[str]
    def to_dict(self) -> Dict[str, Any]: ...

class LedgerCheckRow:
    kind: str
    metric: str
    direction: str
    baseline: Optional[float]
    candidate: Optional[float]
    limit: str
    regressed: bool

class LedgerCheck:
    rows: List[LedgerCheckRow]
    not_recorded: List[str]
    regressions: int
    text: str

class Ledger:
    def __init__(self, path: PathLike, write: bool = ...) -> None: ...
    def record(self, kind: str, report: Union[str, Dict[str, Any]], tag: str = ...,
               model_file: Optional[PathLike] = ..., output_file: Optional[PathLike] = ...,
               options: Optional[Dict[str, Any]] = ...) -> int: ...
    def runs(self) -> List[Dict[str, Any]]: ...
    def run(self, id: int) -> Dict[str, Any]: ...
    def tags(self) -> List[str]: ...
    def check(self, baseline: str, candidate: str, max_drop: Optional[str] = ...,
              max_rise: Optional[str] = ...) -> LedgerCheck: ...
    @property
    def path(self) -> str: ...

class DetectReport:
    frames: int
    detections: int
    skipped: int
    missing: int
    dropped: int
    interrupted: bool
    fps: float
    notices: List[str]
    summary: str
    def to_dict(self) -> Dict[str, Any]: ...

class StudyResult:
    @property
    def out(self) -> str: ...
    runs: int
    steps: int
    cached: int
    seconds: float
    def data(self) -> Dict[str, Any]: ...
    def ledger(self) -> Dict[str, Any]: ...

class StudyWorkResult:
    computed: int
    deferred: int
    passes: int
    seconds: float

class Finding:
    severity: str
    kind: str
    value: str
    node: str
    message: str
    numbers: Dict[str, float]

class SensitivityRow:
    value: str
    loss: float
    rel_l2: float
    box_px: float
    kpt_px: float
    score: float
    flipped: float

class DoctorReport:
    target: str
    qdq: bool
    encodings_from: str
    has_stats: bool
    calibrated_images: int
    pair_images: int
    findings: List[Finding]
    ranking: List[SensitivityRow]
    blocks: List[SensitivityRow]
    measure: str
    sensitivity_images: int
    mixed: List[str]
    text: str
    hidden: int
    def to_dict(self) -> Dict[str, Any]: ...

class Boxes:
    xyxy: npt.NDArray[np.float32]  # (N, 4)
    conf: npt.NDArray[np.float32]  # (N,)
    cls: npt.NDArray[np.int64]     # (N,)
    def __len__(self) -> int: ...

class Keypoints:
    xy: npt.NDArray[np.float32]    # (N, K, 2)
    conf: npt.NDArray[np.float32]  # (N, K)
    def __len__(self) -> int: ...

class Results:
    path: str
    boxes: Boxes
    keypoints: Optional[Keypoints]
    def __len__(self) -> int: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Session:
    model: Model
    def __init__(self, model: Union[Model, QuantizedModel, PathLike, bytes, Any],
                 exec: str = ..., emulate: str = ..., threads: int = ..., conf: float = ...,
                 iou: float = ..., max_det: int = ...) -> None: ...
    def predict(self, source: Union[PathLike, Frame, Iterable[Union[PathLike, Frame]]]
                ) -> List[Results]: ...
    def __call__(self, source: Union[PathLike, Frame, Iterable[Union[PathLike, Frame]]]
                 ) -> List[Results]: ...
    def run(self, inputs: Union[npt.NDArray[np.float32], Dict[str, npt.NDArray[np.float32]]]
            ) -> Dict[str, npt.NDArray[np.float32]]: ...
    @property
    def notices(self) -> List[str]: ...

def calibrate(model: Union[Model, PathLike, bytes], images: Images, *, n: int = ...,
              seed: int = ..., shard: Union[None, str, Tuple[int, int]] = ...,
              threads: int = ..., workers: int = ..., histogram_stride: int = ...,
              progress: Progress = ...) -> Stats: ...

def quantize(model: Union[Model, PathLike, bytes], stats: Stats, *, scheme: str = ...,
             range: str = ..., percentile: Optional[float] = ...,
             a16: Optional[Sequence[str]] = ...,
             mixed: Optional[Sequence[str]] = ..., exclude: Optional[Sequence[str]] = ...,
             overrides: Optional[PathLike] = ..., placement: str = ..., qdq16: str = ...,
             per_tensor_weights: bool = ..., symmetric_activations: bool = ...,
             saturation_safe: bool = ..., reduce_range: bool = ..., quantize_io: str = ...,
             images: Optional[Images] = ..., gptq: Optional[bool] = ..., cle: bool = ...,
             bias_correction: bool = ..., repair_n: int = ..., seed: int = ...,
             repair_memory_mib: int = ..., auto: float = ..., auto_n: int = ...,
             threads: int = ..., progress: Progress = ...) -> QuantizedModel: ...

def compare(reference: Union[Model, QuantizedModel, PathLike, bytes],
            test: Union[Model, QuantizedModel, PathLike, bytes], images: PathLike, *,
            labels: Optional[PathLike] = ..., n: int = ..., conf: float = ..., iou: float = ...,
            map_conf: float = ..., exec: str = ..., emulate: str = ..., threads: int = ...,
            progress: Progress = ...) -> CompareReport: ...

def doctor(model: Union[Model, QuantizedModel, PathLike, bytes], stats: Optional[Stats] = ...,
           *, target: str = ..., images: Optional[Images] = ...,
           encodings: Optional[PathLike] = ..., max_images: int = ..., sensitivity: int = ...,
           top_percent: float = ..., max_info: int = ..., all: bool = ...,
           progress: Progress = ...) -> DoctorReport: ...

def bench(model: Union[Model, QuantizedModel, PathLike, bytes], *, runs: int = ...,
          warmup: int = ..., workers: int = ..., exec: str = ..., emulate: str = ...,
          threads: int = ..., profile: bool = ...) -> BenchReport: ...

def detect(model: Union[Model, QuantizedModel, PathLike, bytes], source: PathLike, *,
           json: Optional[PathLike] = ..., draw: Optional[PathLike] = ..., pipeline: bool = ...,
           pipeline_mode: str = ..., queue: int = ..., drop_late: bool = ..., exec: str = ..., emulate: str = ...,
           threads: int = ..., conf: float = ..., iou: float = ..., max_det: int = ...,
           on_frame: Optional[Callable[[str], Any]] = ..., progress: Progress = ...
           ) -> DetectReport: ...

def study(models: Union[PathLike, Sequence[PathLike]], images: PathLike, test: PathLike,
          out: PathLike, *, progress: Progress = ..., **options: Any) -> StudyResult: ...

def study_worker(models: Union[PathLike, Sequence[PathLike]], images: PathLike, test: PathLike,
                 out: PathLike, index: int, count: int, *, lease_s: float = ...,
                 progress: Progress = ..., **options: Any) -> StudyWorkResult: ...

def study_plan(models: Union[PathLike, Sequence[PathLike]], images: PathLike, test: PathLike,
               out: PathLike, **options: Any) -> Dict[str, Any]: ...

def main(argv: Optional[Sequence[str]] = ...) -> int: ...
