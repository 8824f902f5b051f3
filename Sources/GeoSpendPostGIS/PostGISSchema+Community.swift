/// Migration v15: the community layer (as the file's v24, Sources/GeoSpendSpatiaLite/CommunityStorage.swift).
extension PostGISSchema {
    static let community = Migration(identifier: "v15: community", sql: """
        CREATE TABLE community_members (
            user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            display_name text NOT NULL,
            display_key text NOT NULL UNIQUE,
            joined_at text COLLATE "C" NOT NULL
        );
        CREATE TABLE community_posts (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            type text COLLATE "C" NOT NULL CHECK (type IN ('price_update', 'store_review', 'product_review', 'new_product', 'general')),
            store_id text COLLATE "C" REFERENCES stores(id) ON DELETE SET NULL ON UPDATE CASCADE,
            product_id bigint REFERENCES products(id) ON DELETE SET NULL,
            rating integer CHECK (rating BETWEEN 1 AND 5),
            body text,
            price_minor bigint,
            currency text COLLATE "C",
            price_record_pk bigint,
            automatic boolean NOT NULL,
            verified boolean NOT NULL,
            created_at text COLLATE "C" NOT NULL,
            created_ms bigint NOT NULL
        );
        CREATE INDEX community_posts_user ON community_posts (user_id, created_ms);
        CREATE INDEX community_posts_store ON community_posts (store_id, id);
        CREATE INDEX community_posts_product ON community_posts (product_id, id);
        CREATE TABLE community_comments (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            post_id bigint NOT NULL REFERENCES community_posts(id) ON DELETE CASCADE,
            user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE ON UPDATE CASCADE,
            body text NOT NULL,
            created_at text COLLATE "C" NOT NULL,
            created_ms bigint NOT NULL
        );
        CREATE INDEX community_comments_post ON community_comments (post_id, id);
        CREATE INDEX community_comments_user ON community_comments (user_id, created_ms);
        """)
}
