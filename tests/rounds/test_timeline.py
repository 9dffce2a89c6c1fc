"""The timeline rebuilds a round's work at any moment from its event log (pure: no database)."""

from rounds.timeline import Event, WorkState, as_events, state_at

BOX = {"nodes": [{"id": "gateway", "kind": "gateway"}], "edges": []}
TWO_BOXES = {"nodes": [{"id": "gateway", "kind": "gateway"}, {"id": "engine", "kind": "engine"}], "edges": []}
LOG = [
    (10.0, "design", BOX),
    (20.0, "numbers.kv_bytes_per_token", "320 KB"),
    (30.0, "scratch", "2 x 80 x 8"),
    (40.0, "design", TWO_BOXES),
    (50.0, "numbers.kv_bytes_per_token", "320 KiB"),
    (50.0, "numbers.kv_conv", "9.8 GB"),
]


def test_before_the_first_event_the_work_is_empty():
    state = state_at(LOG, 5)
    assert state.as_dict() == {"design": {"nodes": [], "edges": []}, "numbers": {}, "scratch": ""}


def test_each_field_holds_its_last_value_at_or_before_the_moment():
    assert state_at(LOG, 10).design == BOX
    state = state_at(LOG, 45)
    assert state.design == TWO_BOXES
    assert state.numbers == {"kv_bytes_per_token": "320 KB"}
    assert state.scratch == "2 x 80 x 8"


def test_events_at_the_same_second_all_apply():
    assert state_at(LOG, 50).numbers == {"kv_bytes_per_token": "320 KiB", "kv_conv": "9.8 GB"}


def test_the_log_may_come_out_of_order_and_as_mappings_or_events():
    shuffled = [{"t": t, "field": f, "value": v} for t, f, v in reversed(LOG)]
    assert state_at(shuffled, 60).as_dict() == state_at(LOG, 60).as_dict()
    assert state_at([Event(*row) for row in LOG], 60).as_dict() == state_at(LOG, 60).as_dict()


def test_an_emptied_number_leaves_the_sheet():
    log = [*LOG, (70.0, "numbers.kv_conv", "")]
    assert state_at(log, 70).numbers == {"kv_bytes_per_token": "320 KiB"}


def test_same_time_events_keep_log_order():
    log = [(5.0, "scratch", "first"), (5.0, "scratch", "second")]
    assert [event.value for event in as_events(log)] == ["first", "second"]
    assert state_at(log, 5).scratch == "second"


def test_rebuilding_never_mutates_the_log():
    state = state_at(LOG, 60)
    state.numbers["kv_conv"] = "changed"
    assert state_at(LOG, 60).numbers["kv_conv"] == "9.8 GB"


def test_the_replay_starts_from_the_work_the_round_opened_with():
    client = {"nodes": [{"id": "client", "kind": "client"}], "edges": []}
    opening = WorkState(design=client, numbers={"n_layers": "80"})
    assert state_at(LOG, 5, start=opening).as_dict() == {
        "design": client,
        "numbers": {"n_layers": "80"},
        "scratch": "",
    }
    later = state_at(LOG, 20, start=opening)
    assert later.design == BOX
    assert later.numbers == {"n_layers": "80", "kv_bytes_per_token": "320 KB"}
    assert opening.numbers == {"n_layers": "80"}, "the opening state is not written into"
