-- PostGIS side of the benchmark: the same expenses CSV that `geospend import` reads, loaded the
-- way a PostGIS user would: COPY into a typed table whose geography column PostgreSQL computes
-- from lat/lon, then GiST and B-tree indexes and ANALYZE. scripts/bench.sh fills in the file
-- paths ({{…}}: psql does not expand variables in \copy) and times it as the "import" workload.
\set ON_ERROR_STOP on
DROP TABLE IF EXISTS expenses, stores;
CREATE TABLE stores (
    id text PRIMARY KEY, name text, kind text, brand text, street text, postcode text, city text,
    country text, lat double precision NOT NULL, lon double precision NOT NULL,
    geog geography(Point, 4326) GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography) STORED
);
CREATE TABLE expenses (
    id text PRIMARY KEY, user_id text NOT NULL, kind text NOT NULL, amount numeric NOT NULL,
    currency char(3) NOT NULL, occurred_at timestamptz NOT NULL, title text, category text,
    merchant text, lat double precision, lon double precision, accuracy_m real, store_id text,
    notes text,
    geog geography(Point, 4326) GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography) STORED
);
\copy stores (id, name, kind, brand, street, postcode, city, country, lat, lon) FROM '{{stores}}' WITH (FORMAT csv, HEADER true)
\copy expenses (id, user_id, kind, amount, currency, occurred_at, title, category, merchant, lat, lon, accuracy_m, store_id, notes) FROM '{{expenses}}' WITH (FORMAT csv, HEADER true)
CREATE INDEX stores_geog ON stores USING gist (geog);
CREATE INDEX expenses_geog ON expenses USING gist (geog);
CREATE INDEX expenses_user ON expenses (user_id);
CREATE INDEX expenses_store ON expenses (store_id);
ANALYZE stores;
ANALYZE expenses;
