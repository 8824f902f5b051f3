/// The engine's name and version, as exports and `--version` report them.
public enum GeoSpendInfo {
    public static let version = "0.1.0"
}
