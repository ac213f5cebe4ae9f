"""The app icon (from the `tingji.assets` package) and the small line icons of the UI.

The UI icons are drawn from a few lines of SVG each and tinted with the
palette's text colour when they are made, so they look the same on every
platform (no dependence on an icon theme, which Windows lacks) and stay
readable in dark mode: the window rebuilds them when the palette changes.

`python -m tingji.gui.icons` re-renders assets/icon.png and icon.ico (and the
per-size PNGs) from assets/icon.svg after the SVG is edited.
"""

from __future__ import annotations

import struct
import sys
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer

ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)

_GLYPHS: dict[str, str] = {
    "add-file": '<path d="M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8z"/><path d="M14 3v5h5"/>'
    '<path d="M12 11v6M9 14h6"/>',
    "folder": '<path d="M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z"/>'
    '<path d="M12 10v6M9 13h6"/>',
    "cancel": '<circle cx="12" cy="12" r="9"/><path d="M9 9l6 6M15 9l-6 6"/>',
    "cancel-all": '<circle cx="12" cy="12" r="9"/><rect x="9" y="9" width="6" height="6" rx="1"/>',
    "settings": '<path d="M4 7h9M17 7h3M4 17h3M11 17h9"/><circle cx="15" cy="7" r="2"/><circle cx="9" cy="17" r="2"/>',
    "up": '<path d="M12 19V5M6 11l6-6 6 6"/>',
    "down": '<path d="M12 5v14M6 13l6 6 6-6"/>',
    "remove": '<path d="M4 7h16M10 7V4h4v3M6 7l1 13h10l1-13M10 11v5M14 11v5"/>',
    "retry": '<path d="M19.5 12a7.5 7.5 0 1 1-2.2-5.3"/><path d="M20 4v5h-5"/>',
    "copy": '<rect x="9" y="9" width="11" height="11" rx="2"/><path d="M5 15V6a2 2 0 0 1 2-2h8"/>',
    "export": '<path d="M12 3v11M7 8l5-5 5 5"/><path d="M5 14v5a1 1 0 0 0 1 1h12a1 1 0 0 0 1-1v-5"/>',
    "play": '<path d="M8 5v14l11-7z" fill="{color}"/>',
    "stop": '<rect x="6" y="6" width="12" height="12" rx="2" fill="{color}"/>',
    "drop": '<path d="M12 3v11M7 9l5 5 5-5"/><path d="M4 14v5a1 1 0 0 0 1 1h14a1 1 0 0 0 1-1v-5"/>',
    "model": '<path d="M12 3l8 4.5v9L12 21l-8-4.5v-9z"/><path d="M4 7.5l8 4.5 8-4.5M12 12v9"/>',
    "mic": '<rect x="9" y="3" width="6" height="11" rx="3"/><path d="M5.5 11a6.5 6.5 0 0 0 13 0M12 17.5V21M9 21h6"/>',
    "files": '<path d="M8 6h12M8 12h12M8 18h12"/><circle cx="4" cy="6" r="1" fill="{color}"/>'
    '<circle cx="4" cy="12" r="1" fill="{color}"/><circle cx="4" cy="18" r="1" fill="{color}"/>',
}


def _svg(name: str, color: str) -> bytes:
    body = _GLYPHS[name].replace("{color}", color)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="{color}" '
        f'stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">{body}</svg>'
    ).encode()


def render_svg(data: bytes, size: int) -> QImage:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(QByteArray(data)).render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def glyph(name: str, palette: QPalette, color: QColor | None = None) -> QIcon:
    """A line icon in the palette's text colour, with a greyed variant for disabled buttons."""
    normal = (color or palette.color(QPalette.ColorRole.ButtonText)).name()
    disabled = palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText).name()
    icon = QIcon()
    for size in (16, 20, 24, 32, 48, 64):
        icon.addPixmap(QPixmap.fromImage(render_svg(_svg(name, normal), size)), QIcon.Mode.Normal)
        icon.addPixmap(QPixmap.fromImage(render_svg(_svg(name, disabled), size)), QIcon.Mode.Disabled)
    return icon


def app_icon() -> QIcon:
    """The Tingji icon: the SVG when Qt can render it, else the committed PNG."""
    assets = resources.files("tingji.assets")
    icon = QIcon()
    svg = assets.joinpath("icon.svg")
    if svg.is_file():
        data = svg.read_bytes()
        for size in (16, 24, 32, 48, 64, 128, 256):
            icon.addPixmap(QPixmap.fromImage(render_svg(data, size)))
    png = assets.joinpath("icon.png")
    if icon.isNull() and png.is_file():
        pixmap = QPixmap()
        pixmap.loadFromData(png.read_bytes())
        icon.addPixmap(pixmap)
    return icon


def _png_bytes(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(buffer.data().data())


def write_ico(images: list[QImage], path: Path) -> None:
    """A multi-size .ico with PNG-compressed entries (what Windows Vista and later read)."""
    blobs = [_png_bytes(img) for img in images]
    header = struct.pack("<HHH", 0, 1, len(blobs))
    offset = 6 + 16 * len(blobs)
    entries = b""
    for img, blob in zip(images, blobs):
        w = img.width() if img.width() < 256 else 0  # 0 means 256
        entries += struct.pack("<BBBBHHII", w, w, 0, 0, 1, 32, len(blob), offset)
        offset += len(blob)
    path.write_bytes(header + entries + b"".join(blobs))


def render_assets(folder: Path) -> list[Path]:
    """icon.png (256), icon-<n>.png for each ICO size, and icon.ico, from icon.svg."""
    data = (folder / "icon.svg").read_bytes()
    images = [render_svg(data, n) for n in ICO_SIZES]
    written = []
    for n, img in zip(ICO_SIZES, images):
        img.save(str(folder / f"icon-{n}.png"))
        written.append(folder / f"icon-{n}.png")
    images[-1].save(str(folder / "icon.png"))
    write_ico(images, folder / "icon.ico")
    return written + [folder / "icon.png", folder / "icon.ico"]


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication(sys.argv[:1])
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[3] / "assets"
    for p in render_assets(target):
        print(p)
