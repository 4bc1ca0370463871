-- The example store's tables on SQLite: money in integer minor units, date-times as RFC 3339
-- text, booleans as 0 or 1. `IF NOT EXISTS`: store files made before migrations were tracked
-- take this first migration as it is.
CREATE TABLE IF NOT EXISTS customers (
    id     INTEGER PRIMARY KEY,
    name   TEXT    NOT NULL,
    email  TEXT    NOT NULL UNIQUE,
    active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    vip    INTEGER          CHECK (vip IN (0, 1))
);
CREATE TABLE IF NOT EXISTS products (
    sku      TEXT    PRIMARY KEY,
    name     TEXT    NOT NULL,
    price    INTEGER NOT NULL CHECK (price >= 0),
    currency TEXT    NOT NULL CHECK (currency IN ('EUR', 'USD', 'GBP'))
);
CREATE TABLE IF NOT EXISTS orders (
    id            INTEGER PRIMARY KEY,
    customer_id   INTEGER NOT NULL REFERENCES customers (id),
    status        TEXT    NOT NULL
                  CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled', 'refunded')),
    currency      TEXT    NOT NULL CHECK (currency IN ('EUR', 'USD', 'GBP')),
    total         INTEGER NOT NULL CHECK (total >= 0),
    refunded      INTEGER NOT NULL DEFAULT 0 CHECK (refunded >= 0 AND refunded <= total),
    note          TEXT,
    cancel_reason TEXT,
    placed_at     TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS orders_by_customer ON orders (customer_id);
CREATE TABLE IF NOT EXISTS order_lines (
    order_id   INTEGER NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    sku        TEXT    NOT NULL REFERENCES products (sku),
    quantity   INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 100),
    unit_price INTEGER NOT NULL CHECK (unit_price >= 0),
    PRIMARY KEY (order_id, position)
);
