//! Statements run in the write lane's transaction (`batching/lane.rs`),
//! on SQLite's handle locked out of sqlx's worker thread: each runs on the
//! lane's own thread, with no hand-off to another thread and back. The
//! placeholders are `$N`, bound by number as sqlx binds them, so a
//! statement reads the same on either side.

use rusqlite::{CachedStatement, Connection, Row, ToSql};

/// Run a statement that returns no rows; the rows it changed.
pub(super) fn execute(db: &Connection, sql: &str, args: &[&dyn ToSql]) -> rusqlite::Result<usize> {
    prepared(db, sql, args)?.raw_execute()
}

/// The first row a statement returns, read by `read`, if it returns any.
pub(super) fn first<T>(
    db: &Connection,
    sql: &str,
    args: &[&dyn ToSql],
    read: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Option<T>> {
    let mut stmt = prepared(db, sql, args)?;
    let mut rows = stmt.raw_query();
    rows.next()?.map(read).transpose()
}

/// The statement, prepared once per transaction and bound: `$N` takes
/// `args[N - 1]`.
fn prepared<'c>(
    db: &'c Connection,
    sql: &str,
    args: &[&dyn ToSql],
) -> rusqlite::Result<CachedStatement<'c>> {
    let mut stmt = db.prepare_cached(sql)?;
    for i in 1..=stmt.parameter_count() {
        let n = stmt
            .parameter_name(i)
            .and_then(|name| name.strip_prefix('$'))
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(i);
        let arg = n
            .checked_sub(1)
            .and_then(|at| args.get(at))
            .ok_or(rusqlite::Error::InvalidParameterCount(n, args.len()))?;
        stmt.raw_bind_parameter(i, arg)?;
    }
    Ok(stmt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_bind_by_number_in_any_order() {
        let db = Connection::open_in_memory().unwrap();
        let got = first(
            &db,
            "SELECT $2 || '-' || $1 || '-' || $2",
            &[&"a", &"b"],
            |r| r.get::<_, String>(0),
        )
        .unwrap();
        assert_eq!(got.as_deref(), Some("b-a-b"));
    }

    #[test]
    fn a_missing_argument_is_an_error() {
        let db = Connection::open_in_memory().unwrap();
        let err = first(&db, "SELECT $3", &[&1i64], |r| r.get::<_, i64>(0)).unwrap_err();
        assert!(matches!(err, rusqlite::Error::InvalidParameterCount(3, 1)));
    }

    #[test]
    fn no_row_is_none_and_changes_are_counted() {
        let db = Connection::open_in_memory().unwrap();
        db.execute_batch("CREATE TABLE t (a INTEGER)").unwrap();
        assert_eq!(
            execute(&db, "INSERT INTO t VALUES ($1), ($1)", &[&7i64]).unwrap(),
            2
        );
        let none = first(&db, "SELECT a FROM t WHERE a = $1", &[&8i64], |r| {
            r.get::<_, i64>(0)
        });
        assert_eq!(none.unwrap(), None);
    }
}
