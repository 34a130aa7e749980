EXPLAIN CHANGELOG_MODE
SELECT o.id, b.item FROM Orders o, Bid b
WHERE o.currency = b.supplier_id AND b.bidtime BETWEEN o.ts - INTERVAL '1' HOUR AND o.ts;
