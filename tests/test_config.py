"""tj.config: every setting checked when set, shown by repr, and set for a block by tj.config.override."""
import re
import threading

import pytest

import tapejax as tj
from tapejax.config import SETTINGS

# A value for each setting that differs from the library default, and one it must refuse.
OTHER = dict(aggregation_min_count=9, aggregation_min_bytes=777, lazy=False, replay=False, replay_warmup=5,
             replay_cache_size=3, replay_shapes=5, replay_exact=True, replay_background=False, replay_max_ops=12,
             replay_ahead=False)
BAD = dict(aggregation_min_count=(-1, ValueError), aggregation_min_bytes=(-1, ValueError), lazy=("yes", TypeError),
           replay=(1, TypeError), replay_warmup=(1.5, TypeError), replay_cache_size=(0, ValueError),
           replay_shapes=(-1, ValueError), replay_exact=(None, TypeError), replay_background=(0, TypeError),
           replay_max_ops=(True, TypeError), replay_ahead=("no", TypeError))


def test_tables_name_every_setting():
    assert set(OTHER) == set(BAD) == set(SETTINGS)
    assert all(OTHER[name] != value for name, value in tj.config.settings().items())


def test_repr_shows_every_setting_with_its_value():
    with tj.config.override(**OTHER):
        text = repr(tj.config)
    for name, value in OTHER.items():
        assert f"{name}={value!r}" in text, (name, text)


def test_settings_are_read_somewhere_in_the_library():
    """No dead settings: each is read by the library's code (``config.x`` outside config.py; prose says
    ``tj.config.x`` and does not count; an assignment does not count)."""
    import pathlib
    src = pathlib.Path(tj.__file__).parent
    text = "\n".join(p.read_text() for p in src.rglob("*.py") if p.name != "config.py")
    for name in SETTINGS:
        assert re.search(rf"(?<![\w.])config\.{name}\b(?!\s*=[^=])", text), f"tj.config.{name} is never read"


def test_override_sets_then_restores():
    before = tj.config.settings()
    with tj.config.override(**OTHER) as cfg:
        assert cfg is tj.config
        assert tj.config.settings() == OTHER
    assert tj.config.settings() == before


def test_override_restores_when_the_block_raises():
    before = tj.config.settings()
    with pytest.raises(RuntimeError, match="boom"):
        with tj.config.override(lazy=False, replay_warmup=0):
            assert (tj.config.lazy, tj.config.replay_warmup) == (False, 0)
            raise RuntimeError("boom")
    assert tj.config.settings() == before


def test_override_nests():
    before = tj.config.settings()
    with tj.config.override(replay_warmup=5, lazy=False):
        with tj.config.override(replay_warmup=7):
            assert (tj.config.replay_warmup, tj.config.lazy) == (7, False)
            with tj.config.override(lazy=True):
                assert (tj.config.replay_warmup, tj.config.lazy) == (7, True)
            assert (tj.config.replay_warmup, tj.config.lazy) == (7, False)
        assert (tj.config.replay_warmup, tj.config.lazy) == (5, False)
    assert tj.config.settings() == before


def test_override_restores_what_the_block_assigned_to_the_same_setting():
    before = tj.config.replay_warmup
    with tj.config.override(replay_warmup=5):
        tj.config.replay_warmup = 6
    assert tj.config.replay_warmup == before


def test_override_keeps_the_device_dependent_default_of_min_bytes():
    default = tj.config.aggregation_min_bytes
    with tj.config.override(aggregation_min_bytes=1):
        assert tj.config.aggregation_min_bytes == 1
    assert tj.config.aggregation_min_bytes == default


def test_override_is_per_thread():
    """A block in one thread changes nothing for another thread that is already running."""
    entered, checked = threading.Event(), threading.Event()
    seen = {}

    def other():
        tj.config.replay_warmup  # this thread's config starts now, before the main thread's block
        entered.wait(30)
        seen["other"] = (tj.config.lazy, tj.config.replay_warmup)
        with tj.config.override(replay_warmup=11):
            seen["other block"] = tj.config.replay_warmup
        checked.set()

    before = (tj.config.lazy, tj.config.replay_warmup)
    th = threading.Thread(target=other)
    th.start()
    with tj.config.override(lazy=not before[0], replay_warmup=9):
        entered.set()
        checked.wait(30)
        assert (tj.config.lazy, tj.config.replay_warmup) == (not before[0], 9)
    th.join(30)
    assert seen == {"other": before, "other block": 11}
    assert (tj.config.lazy, tj.config.replay_warmup) == before


def test_override_rejects_unknown_names_listing_the_settings():
    before = tj.config.settings()
    with pytest.raises(TypeError) as info:
        with tj.config.override(lazy=False, replay_warmpu=3):
            pass
    message = str(info.value)
    assert "'replay_warmpu'" in message and all(name in message for name in SETTINGS), message
    assert tj.config.settings() == before  # nothing set, not even the valid one


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_every_setting_checks_its_value(name):
    value, error = BAD[name]
    before = tj.config.settings()
    with pytest.raises(error, match=rf"tj\.config\.{name}"):
        setattr(tj.config, name, value)
    with pytest.raises(error, match=rf"tj\.config\.{name}"):
        valid = "lazy" if name != "lazy" else "replay_warmup"  # a valid value next to the bad one
        with tj.config.override(**{valid: OTHER[valid], name: value}):
            pass
    assert tj.config.settings() == before  # checked before anything is set


def test_assigning_an_unknown_setting_fails():
    with pytest.raises(AttributeError, match=r"'lazzy'.*replay_warmup"):
        tj.config.lazzy = False


def test_aggregation_block_is_an_override_of_the_two_thresholds():
    with tj.config.aggregation(min_count=1):
        assert tj.config.aggregation_min_count == 1
    with pytest.raises(ValueError, match="aggregation_min_count"):
        with tj.config.aggregation(min_count=-1):
            pass
