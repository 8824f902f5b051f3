import HTTPTypes

extension HTTPField.Name {
    /// RFC 8288 `Link`, which swift-http-types does not name.
    public static let link = HTTPField.Name("Link")!
}
