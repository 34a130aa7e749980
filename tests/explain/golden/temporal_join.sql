EXPLAIN CHANGELOG_MODE
SELECT o.id, o.amount * r.rate AS converted FROM Orders AS o
JOIN Rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency;
