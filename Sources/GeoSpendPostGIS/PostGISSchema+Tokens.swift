/// Migration v4: API tokens (as the file's v12): the SHA-256 of each token's secret, never the
/// secret; `number` the id users see, per user, never reused (`api_token_numbers`); `lookup`
/// the random key a token carries, unique across users (with Citus this table would be a
/// reference table: the service finds a token by `lookup` before it knows the user).
extension PostGISSchema {
    static let tokens = Migration(identifier: "v4: API tokens", sql: """
        CREATE TABLE api_tokens (
            pk bigserial PRIMARY KEY,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            number bigint NOT NULL CHECK (number > 0),
            lookup text COLLATE "C" NOT NULL UNIQUE,
            scope text NOT NULL CHECK (scope IN ('read', 'write', 'admin')),
            sha256 bytea NOT NULL CHECK (length(sha256) = 32),
            created_at text NOT NULL,
            expires_at text,
            UNIQUE (user_id, number)
        );
        CREATE TABLE api_token_numbers (
            user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            last bigint NOT NULL
        );
        """)
}
