"""OpenAI message helpers: server URLs, images as PNG data URLs, user turns with image parts."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from vcoder.chat import image_data_url, normalize_base_url, user_message


def _png(colour=(200, 30, 30), size=(64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000/v1"),
        ("http://127.0.0.1:8000/", "http://127.0.0.1:8000/v1"),
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        ("http://127.0.0.1:8000/v1/", "http://127.0.0.1:8000/v1"),
        ("https://host/api/v2", "https://host/api/v2"),
        ("http://h:1/v1/chat/completions", "http://h:1/v1"),
    ],
)
def test_normalize_base_url(given, expected):
    assert normalize_base_url(given) == expected


def test_normalize_base_url_rejects_missing_scheme():
    with pytest.raises(ValueError, match="http://"):
        normalize_base_url("127.0.0.1:8000")


def test_image_data_url_from_bytes_pil_path_and_jpeg(tmp_path):
    png = _png()
    url = image_data_url(png)
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == png  # PNG bytes are sent as they are
    decoded = Image.open(io.BytesIO(base64.b64decode(image_data_url(Image.open(io.BytesIO(png))).split(",", 1)[1])))
    assert decoded.size == (64, 48) and decoded.convert("RGB").getpixel((5, 5)) == (200, 30, 30)
    (tmp_path / "a.png").write_bytes(png)
    assert image_data_url(tmp_path / "a.png") == url
    jpeg = io.BytesIO()
    Image.new("RGB", (8, 8), "blue").save(jpeg, format="JPEG")
    decoded = base64.b64decode(image_data_url(jpeg.getvalue()).split(",", 1)[1])
    assert decoded.startswith(b"\x89PNG")  # re-encoded
    assert Image.open(io.BytesIO(decoded)).size == (8, 8)


def test_user_message_shape():
    png = _png()
    url = image_data_url(png)
    assert user_message("hi", images=[png, png]) == {
        "role": "user",
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "image_url", "image_url": {"url": url}},
            {"type": "image_url", "image_url": {"url": url}},
        ],
    }
    first = user_message("hi", images=[png], images_first=True)
    assert first["content"] == [{"type": "image_url", "image_url": {"url": url}}, {"type": "text", "text": "hi"}]
    assert user_message("only text") == {"role": "user", "content": [{"type": "text", "text": "only text"}]}
