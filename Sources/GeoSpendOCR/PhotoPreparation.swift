import CTesseract
import Foundation
import GeoSpend

/// A Leptonica image this code owns: destroyed (`pixDestroy`) when the last reference goes.
final class Picture {
    var pix: UnsafeMutablePointer<PIX>

    init(_ pix: UnsafeMutablePointer<PIX>) { self.pix = pix }

    /// Takes a new image from a Leptonica function, or throws naming the step that failed.
    static func take(_ pix: UnsafeMutablePointer<PIX>?, step: String) throws -> Picture {
        guard let pix else { throw ScanError.preparation(step) }
        return Picture(pix)
    }

    deinit {
        var p: UnsafeMutablePointer<PIX>? = pix
        ocr.pixDestroy(&p)
    }

    var width: Int { Int(ocr.pixGetWidth(pix)) }
    var height: Int { Int(ocr.pixGetHeight(pix)) }
    var depth: Int { Int(ocr.pixGetDepth(pix)) }

    /// The 8-bit gray value at (x, y); Leptonica packs four to a 32-bit word, first byte highest.
    func grayRows() -> [[UInt8]] {
        let data = ocr.pixGetData(pix)!, wpl = Int(ocr.pixGetWpl(pix))
        var rows: [[UInt8]] = []
        rows.reserveCapacity(height)
        for y in 0..<height {
            let line = UnsafeRawPointer(data + y * wpl).assumingMemoryBound(to: UInt8.self)
            var row = [UInt8](repeating: 0, count: width)
            for x in 0..<width { row[x] = line[x ^ 3] }
            rows.append(row)
        }
        return rows
    }
}

/// The steps that prepare a phone photo of a receipt for OCR, each one switchable so its effect
/// can be measured (`make eval-receipts`, docs/RECEIPTS.md).
public struct PreparationSteps: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Find the paper against its background and correct its perspective (and so its rotation).
    public static let paper = PreparationSteps(rawValue: 1)
    /// The small rotation left after `paper` (Leptonica's `pixFindSkew`).
    public static let deskew = PreparationSteps(rawValue: 2)
    /// Even out the lighting (Leptonica's `pixBackgroundNormFlex`).
    public static let light = PreparationSteps(rawValue: 4)
    /// Scale to the text height the OCR prefers (capital letters about 30 pixels).
    public static let scale = PreparationSteps(rawValue: 8)
    /// Black and white before the OCR (Otsu on the normalised background); else Tesseract's own.
    public static let binarize = PreparationSteps(rawValue: 16)
    /// Sharpen after scaling (unsharp mask), for blurred photos.
    public static let sharpen = PreparationSteps(rawValue: 32)

    /// Every step: each one's effect on the evaluation photos is in docs/RECEIPTS.md.
    public static let all: PreparationSteps = [.paper, .deskew, .light, .scale, .sharpen, .binarize]

    public static let names: [(String, PreparationSteps)] = [
        ("paper", .paper), ("deskew", .deskew), ("light", .light), ("scale", .scale), ("binarize", .binarize),
        ("sharpen", .sharpen),
    ]

    /// `paper,light,scale`, `all`, `none`; nil for an unknown name.
    public init?(names text: String) {
        var steps: PreparationSteps = []
        for word in text.split(separator: ",") {
            if word == "all" { steps.formUnion(.all); continue }
            if word == "none" { continue }
            guard let step = Self.names.first(where: { $0.0 == word }) else { return nil }
            steps.insert(step.1)
        }
        self = steps
    }
}

/// Prepares a photo (any depth Leptonica reads) for Tesseract.
enum PhotoPreparation {
    /// The cap height, in pixels, the photo is scaled to: Tesseract's LSTM reads best with
    /// capitals of 20 to 40 pixels.
    static let targetCapHeight: Double = {
        // GEOSPEND_SCAN_CAP_HEIGHT: for measuring other heights (make eval-receipts), not for use.
        if let text = ProcessInfo.processInfo.environment["GEOSPEND_SCAN_CAP_HEIGHT"], let value = Double(text) { return value }
        return 30
    }()

    static func prepare(_ photo: Picture, steps: PreparationSteps, lap: (String) -> Void = { _ in }) throws -> Picture {
        var gray: Picture
        if photo.depth == 32 {
            gray = try .take(ocr.pixConvertRGBToLuminance(photo.pix), step: "gray")
        } else {
            gray = try .take(ocr.pixConvertTo8(photo.pix, 0), step: "gray")
        }
        lap("gray")
        if steps.contains(.paper), let paper = try findPaper(gray) { gray = paper }
        lap("paper")
        if steps.contains(.light) {
            gray = try .take(ocr.pixBackgroundNormFlex(gray.pix, 7, 7, 1, 1, 10), step: "lighting")
        }
        lap("light")
        if steps.contains(.deskew), let straight = ocr.pixDeskew(gray.pix, 0) { gray = Picture(straight) }
        lap("deskew")
        if steps.contains(.scale), let cap = capHeight(gray) {
            let factor = Float(min(4, max(0.25, targetCapHeight / cap)))
            if abs(factor - 1) > 0.1 {
                gray = try .take(
                    factor < 1 ? ocr.pixScaleAreaMap(gray.pix, factor, factor) : ocr.pixScaleGrayLI(gray.pix, factor, factor),
                    step: "scale")
            }
        }
        lap("scale")
        if steps.contains(.sharpen) { gray = try .take(ocr.pixUnsharpMaskingGray(gray.pix, 2, 0.5), step: "sharpen") }
        if steps.contains(.binarize) {
            var threshold: Int32 = 0
            return try .take(
                ocr.pixOtsuThreshOnBackgroundNorm(gray.pix, nil, 2000, 2000, 100, 50, 255, 2, 2, 0.1, &threshold),
                step: "binarize")
        }
        return gray
    }

    /// The paper, cut out and its perspective corrected: the largest bright region of the photo,
    /// its four corners taken as the extreme points along the diagonals. Nil when no region
    /// between a tenth and 97% of the photo stands out (a scan of the paper alone).
    static func findPaper(_ gray: Picture) throws -> Picture? {
        let long = max(gray.width, gray.height)
        let reduction = min(1, Float(400) / Float(long))
        let small = try Picture.take(ocr.pixScaleAreaMap(gray.pix, reduction, reduction), step: "paper")
        let rows = small.grayRows()
        let (w, h) = (small.width, small.height)
        guard w > 8, h > 8 else { return nil }
        let threshold = otsu(rows)
        // Bright pixels, then the largest 4-connected region of them (flood fill, iterative).
        var label = [Int32](repeating: 0, count: w * h)
        var best: (id: Int32, size: Int) = (0, 0)
        var next: Int32 = 0
        var stack: [Int] = []
        for start in 0..<(w * h) where label[start] == 0 && rows[start / w][start % w] > threshold {
            next += 1
            var size = 0
            label[start] = next
            stack.append(start)
            while let i = stack.popLast() {
                size += 1
                let (x, y) = (i % w, i / w)
                for (nx, ny) in [(x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)] where nx >= 0 && ny >= 0 && nx < w && ny < h {
                    let j = ny * w + nx
                    if label[j] == 0 && rows[ny][nx] > threshold {
                        label[j] = next
                        stack.append(j)
                    }
                }
            }
            if size > best.size { best = (next, size) }
        }
        let fraction = Double(best.size) / Double(w * h)
        guard fraction > 0.1, fraction < 0.97 else { return nil }
        // Corners: top-left minimises x+y, bottom-right maximises it; top-right maximises x−y,
        // bottom-left minimises it.
        var tl = (0, 0, Int.max), br = (0, 0, Int.min), tr = (0, 0, Int.min), bl = (0, 0, Int.max)
        for y in 0..<h {
            for x in 0..<w where label[y * w + x] == best.id {
                let s = x + y, d = x - y
                if s < tl.2 { tl = (x, y, s) }
                if s > br.2 { br = (x, y, s) }
                if d > tr.2 { tr = (x, y, d) }
                if d < bl.2 { bl = (x, y, d) }
            }
        }
        let k = 1 / Double(reduction)
        let corners = [tl, tr, br, bl].map { (Double($0.0) * k, Double($0.1) * k) }
        func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
            ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)).squareRoot()
        }
        let width = (distance(corners[0], corners[1]) + distance(corners[3], corners[2])) / 2
        let height = (distance(corners[0], corners[3]) + distance(corners[1], corners[2])) / 2
        guard width > 50, height > 50 else { return nil }
        // Cut the quadrilateral's bounding box first: the warp then works on fewer pixels.
        let minX = max(0, Int(corners.map(\.0).min()!)), minY = max(0, Int(corners.map(\.1).min()!))
        let maxX = min(gray.width, Int(corners.map(\.0).max()!) + 1), maxY = min(gray.height, Int(corners.map(\.1).max()!) + 1)
        var box = ocr.boxCreate(Int32(minX), Int32(minY), Int32(maxX - minX), Int32(maxY - minY))
        defer { ocr.boxDestroy(&box) }
        let cut = try Picture.take(ocr.pixClipRectangle(gray.pix, box, nil), step: "paper")
        // The warped image keeps the cut's size; the paper, `width`×`height`, is laid at its
        // top left, so a paper wider than the cut (strong perspective) is limited to it.
        let (outW, outH) = (min(Int(width), cut.width), min(Int(height), cut.height))
        var source = ocr.ptaCreate(4), target = ocr.ptaCreate(4)
        defer {
            ocr.ptaDestroy(&source)
            ocr.ptaDestroy(&target)
        }
        for (x, y) in corners { _ = ocr.ptaAddPt(source, Float(x - Double(minX)), Float(y - Double(minY))) }
        for (x, y) in [(0, 0), (outW - 1, 0), (outW - 1, outH - 1), (0, outH - 1)] { _ = ocr.ptaAddPt(target, Float(x), Float(y)) }
        let warped = try Picture.take(ocr.pixProjectivePtaGray(cut.pix, target, source, 255), step: "perspective")
        // A small margin in from the paper's edge: the background's shadow is not text.
        let inset = 4
        var inner = ocr.boxCreate(Int32(inset), Int32(inset), Int32(outW - 2 * inset), Int32(outH - 2 * inset))
        defer { ocr.boxDestroy(&inner) }
        return try Picture.take(ocr.pixClipRectangle(warped.pix, inner, nil), step: "paper")
    }

    /// Otsu's threshold of 8-bit rows (Otsu 1979): the value that best splits dark from bright.
    static func otsu(_ rows: [[UInt8]]) -> UInt8 {
        var histogram = [Int](repeating: 0, count: 256)
        for row in rows { for v in row { histogram[Int(v)] += 1 } }
        let total = histogram.reduce(0, +)
        let sum = histogram.enumerated().reduce(0.0) { $0 + Double($1.offset * $1.element) }
        var (sumB, weightB, best, bestT) = (0.0, 0, 0.0, 0)
        for t in 0..<256 {
            weightB += histogram[t]
            if weightB == 0 { continue }
            let weightF = total - weightB
            if weightF == 0 { break }
            sumB += Double(t * histogram[t])
            let meanB = sumB / Double(weightB), meanF = (sum - sumB) / Double(weightF)
            let between = Double(weightB) * Double(weightF) * (meanB - meanF) * (meanB - meanF)
            if between > best { (best, bestT) = (between, t) }
        }
        return UInt8(bestT)
    }

    /// The median height of letter-sized dark marks: the text's cap height, about. Nil when too
    /// few marks are found to tell.
    static func capHeight(_ gray: Picture) -> Double? {
        var threshold: Int32 = 0
        guard
            let binary = ocr.pixOtsuThreshOnBackgroundNorm(gray.pix, nil, 2000, 2000, 100, 50, 255, 2, 2, 0.1, &threshold)
        else { return nil }
        var b: UnsafeMutablePointer<PIX>? = binary
        defer { ocr.pixDestroy(&b) }
        guard let found = ocr.pixConnCompBB(binary, 8) else { return nil }
        var boxes: UnsafeMutablePointer<BOXA>? = found
        defer { ocr.boxaDestroy(&boxes) }
        var heights: [Int32] = []
        let count = ocr.boxaGetCount(found)
        for i in 0..<count {
            var (x, y, w, h): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
            _ = ocr.boxaGetBoxGeometry(found, i, &x, &y, &w, &h)
            // A letter: taller than a speck, not a rule or a smear.
            if h >= 6, h <= 300, w <= 2 * h, w * 8 >= h { heights.append(h) }
        }
        guard heights.count >= 20 else { return nil }
        heights.sort()
        // The upper middle: lower-case letters are shorter than capitals and digits.
        return Double(heights[heights.count * 2 / 3])
    }
}
