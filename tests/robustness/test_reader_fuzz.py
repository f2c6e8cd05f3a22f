"""Property-based fuzzing of the corpus readers: ~200 generated text and zip files, damaged,
mis-encoded or random; ``read_pairs`` returns well-formed pairs or raises ``DatasetError``, nothing else.
``bench/fuzz_readers.py`` runs the same property on 1,000+ files."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from fuzz_corpus import check_reader_on, corpus_files


@settings(max_examples=200, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=corpus_files)
def test_generated_files_raise_only_dataset_error(case: tuple[str, bytes, int | None]) -> None:
    name, data, num_examples = case
    assert check_reader_on(name, data, num_examples) in ("ok", "refused")
