/// The 122 resolution-0 cells (h3geo.org "Base cells"): 12 pentagons on the icosahedron's
/// vertices and 110 hexagons. Each has a home face and ijk whose frame orients its digits; a
/// point found on another face is turned into that frame (`H3Tables`, derived by
/// scripts/h3/derive_tables.py).
enum H3BaseCells {
    static let count = 122

    static func isPentagon(_ cell: Int) -> Bool { H3Tables.baseCells[cell].pentagon }

    static func home(_ cell: Int) -> H3FaceIJK {
        let b = H3Tables.baseCells[cell]
        return H3FaceIJK(face: b.face, ijk: H3IJK(i: b.ijk.0, j: b.ijk.1, k: b.ijk.2))
    }

    /// The base cell at a resolution-0 position on a face, and the 60° ccw turns into its frame.
    static func at(_ p: H3FaceIJK) -> (cell: Int, ccwTurns: Int)? {
        guard p.ijk.i <= 2, p.ijk.j <= 2, p.ijk.k <= 2 else { return nil }
        let e = H3Tables.faceIjkBaseCells[p.face][p.ijk.i * 9 + p.ijk.j * 3 + p.ijk.k]
        return e.cell < 0 ? nil : e
    }

    /// Whether a pentagon's leading-K sequences found on `face` turn clockwise (else ccw).
    static func isClockwiseOffset(_ cell: Int, face: Int) -> Bool {
        H3Tables.baseCells[cell].cwOffsetFaces.contains(face)
    }
}
