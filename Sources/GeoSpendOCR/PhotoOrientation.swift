import CTesseract
import Foundation

/// The orientation a phone wrote into a JPEG's Exif (tag 0x0112): phones store the sensor's
/// pixels as they came and say in this tag how to turn them, and Leptonica's `pixRead` does not
/// turn them. 1 is upright; 3 turned 180°; 6 to be turned 90° clockwise; 8 to be turned 90°
/// counter-clockwise; the mirrored ones (2, 4, 5, 7) are read as their turn alone.
enum PhotoOrientation {
    /// The orientation in `bytes` of a JPEG, 1 when there is none or it cannot be read.
    /// - Complexity: O(n) in the bytes before the image data; reads no more than the first 128 KB.
    static func exifOrientation(_ bytes: [UInt8]) -> Int {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return 1 }
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xDA || length < 2 { break }  // start of scan: no Exif after it
            let start = i + 4, end = min(bytes.count, i + 2 + length)
            if marker == 0xE1, end - start > 14, Array(bytes[start..<start + 6]) == Array("Exif\0\0".utf8) {
                return tiffOrientation(Array(bytes[(start + 6)..<end]))
            }
            i += 2 + length
        }
        return 1
    }

    static func tiffOrientation(_ t: [UInt8]) -> Int {
        guard t.count >= 8 else { return 1 }
        let little = t[0] == 0x49  // "II", else "MM"
        func u16(_ o: Int) -> Int {
            guard o + 2 <= t.count else { return 0 }
            return little ? Int(t[o]) | Int(t[o + 1]) << 8 : Int(t[o]) << 8 | Int(t[o + 1])
        }
        func u32(_ o: Int) -> Int {
            guard o + 4 <= t.count else { return 0 }
            return little ? u16(o) | u16(o + 2) << 16 : u16(o) << 16 | u16(o + 2)
        }
        let ifd = u32(4)
        let count = u16(ifd)
        for k in 0..<min(count, 200) {
            let entry = ifd + 2 + 12 * k
            if u16(entry) == 0x0112 {
                let value = u16(entry + 8)
                return (1...8).contains(value) ? value : 1
            }
        }
        return 1
    }

    /// The photo turned upright (Leptonica's `pixRotateOrth`, quarter turns clockwise).
    static func upright(_ photo: Picture, orientation: Int) throws -> Picture {
        let quads: Int32
        switch orientation {
        case 3, 4: quads = 2
        case 5, 6: quads = 1
        case 7, 8: quads = 3
        default: return photo
        }
        return try .take(ocr.pixRotateOrth(photo.pix, quads), step: "orientation")
    }
}
