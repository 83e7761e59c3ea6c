"""SV-13: the web answers' JSON is encoded by orjson, meaning what Python's encoder wrote."""

from __future__ import annotations

import json
from typing import Any

from fastapi.responses import JSONResponse as StarletteJSONResponse
from hypothesis import given
from hypothesis import strategies as st

from tableside.web.answer_json import JSONResponse

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.text(max_size=8) | st.integers(-5, 5), inner, max_size=5)
    ),
    max_leaves=30,
)


def both(content: Any) -> tuple[bytes, bytes]:
    return bytes(JSONResponse(content).body), bytes(StarletteJSONResponse(content).body)


@given(VALUES)
def test_sv13_an_answer_means_what_pythons_encoder_wrote(content: Any) -> None:
    ours, theirs = both(content)
    assert json.loads(ours) == json.loads(theirs)


def test_sv13_compact_utf8_and_integer_keys_as_text() -> None:
    ours, theirs = both({"name": "Sérà ⚔", 3: [1, 2.5, None, True], "x": {"y": []}})
    assert ours == theirs == '{"name":"Sérà ⚔","3":[1,2.5,null,true],"x":{"y":[]}}'.encode()


def test_sv13_what_orjson_refuses_is_rendered_as_before() -> None:
    huge = {"value": 2**70, "name": "Aldric"}  # beyond 64 bits: Python's encoder writes it
    ours, theirs = both(huge)
    assert ours == theirs and json.loads(ours)["value"] == 2**70
