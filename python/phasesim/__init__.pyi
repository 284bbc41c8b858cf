# Type stubs of the phasesim package (the compiled _phasesim and the pure-Python part).
# Every command returns its JSON document as a dict: numeric lists as NumPy arrays.
import os
from typing import Any, Mapping, Optional, Sequence, Union

Document = dict[str, Any]

__version__: str

def channel(*, beta: float = 5.0, entries: int = 32768, u: Sequence[float] = [1.0]) -> Document: ...
def coverage(*, window: Optional[int] = None, stride: Optional[int] = None,
             gates: Optional[str] = None, arch: Optional[str] = None) -> Document: ...
def niah(*, window: Optional[int] = None, stride: Optional[int] = None,
         heads: Optional[int] = None, gates: Optional[str] = None, arch: Optional[str] = None,
         beta: Optional[float] = None, dim: Optional[int] = None, query_noise: float = 0.0,
         content_noise: float = 0.0, rms_norm: bool = False, context: int = 131072,
         groups: int = 8, prompts: int = 256, combine: str = "any", engine: str = "fast",
         seed: int = 1, threads: int = 0, knockout: Optional[int] = None,
         progress: bool = False) -> Document: ...
def compare(architectures: Sequence[str], *, beta: Optional[float] = None,
            dim: Optional[int] = None, query_noise: float = 0.0, content_noise: float = 0.0,
            rms_norm: bool = False, context: int = 131072, groups: int = 8, prompts: int = 256,
            combine: str = "any", engine: str = "fast", seed: int = 1,
            threads: int = 0) -> Document: ...
def optimize(*, window: int = 8, stride: int = 4, beta: float = 4.5, entries: int = 32768,
             model: str = "normalized", weights: Sequence[float] = [], restarts: int = 8,
             seed: int = 1, init_scale: float = 2.0, max_iterations: int = 500,
             progress: bool = False) -> Document: ...
def phase_diagram(*, window: int = 8, stride: int = 4, model: str = "normalized",
                  beta: str = "4:12:1", entries: Sequence[int] = [1024, 32768, 1000000],
                  restarts: int = 2, seed: int = 1, init_scale: float = 2.0,
                  max_iterations: int = 500, progress: bool = False) -> Document: ...
def dynamics(*, window: int = 8, stride: int = 4, beta: float = 4.5, entries: int = 32768,
             model: str = "normalized", steps: int = 2000, lr: float = 20.0,
             max_logit_step: float = 0.1, update: str = "gradient", content_noise: float = 0.0,
             content_seed: Sequence[int] = [1], content_samples: int = 16,
             init: str = "random:1:0.1", inits: int = 1, reweight_at: int = -1,
             weights: Sequence[float] = [], record_every: int = 200,
             progress: bool = False) -> Document: ...
def diversity(*, stride: int = 4, heads: Sequence[int] = [4, 8, 16, 32, 64, 128, 256, 512, 1024],
              beta_out: float = 12.0, success: float = 0.9, answers: float = 1000.0,
              samples: int = 0, seed: int = 1, train_heads: Sequence[int] = [],
              train_runs: int = 12, train_steps: int = 300, train_seed: int = 1,
              lr: float = 20.0, init_scale: float = 0.1, window: int = 8, beta: float = 4.5,
              entries: int = 32768) -> Document: ...
def theorem_concentration(*, window: int = 8, stride: int = 4, beta: float = 4.5,
                          entries: int = 32768, model: str = "normalized",
                          weights: Sequence[float] = [], restarts: int = 8, seed: int = 1,
                          init_scale: float = 2.0, max_iterations: int = 500,
                          threshold: float = 0.99, progress: bool = False) -> Document: ...
def theorem_lockin(*, window: int = 8, stride: int = 4, beta: float = 4.5, entries: int = 32768,
                   model: str = "normalized", steps: int = 2000, lr: float = 20.0,
                   max_logit_step: float = 0.1, update: str = "gradient",
                   content_noise: float = 0.0, content_seed: Sequence[int] = [1],
                   content_samples: int = 16, init: str = "random:1:0.1", inits: int = 4,
                   reweight_steps: int = 500, progress: bool = False) -> Document: ...
def theorem_diversity(*, stride: int = 4, heads: Sequence[int] = [64, 128, 256, 512, 1024],
                      beta_out: float = 12.0, success: float = 0.9, answers: float = 1000.0,
                      tolerance: float = 0.05) -> Document: ...
def train(*, window: int = 8, stride: int = 4, offset: int = 0, heads: int = 8, dim: int = 32,
          context: int = 2048, query_noise: float = 1.0, rms_norm: bool = False,
          content: bool = True, beta_out: float = 12.0, answers: float = 1000.0,
          steps: int = 2000, batch: int = 16, lr: float = 0.05, init_scale: float = 0.1,
          init_lambda: Optional[float] = None, seed: int = 1, record_every: int = 20,
          log_every: int = 200, groups: int = 8, prompts: int = 256, threads: int = 0,
          progress: bool = False) -> Document: ...
def diagnose(table: Union[str, os.PathLike[str], Mapping[str, Sequence[float]], Any], *,
             window: Optional[int] = None, stride: Optional[int] = None,
             context: Optional[int] = None, heads: Optional[int] = None,
             replicates: int = 9999, seed: int = 1, threads: int = 0) -> Document: ...
def sweep(file: Union[str, os.PathLike[str]], *, out: Union[str, os.PathLike[str]],
          resume: bool = False, threads: int = 0, progress: bool = False) -> Document: ...
def to_frame(result: Document) -> Any: ...  # a pandas.DataFrame
