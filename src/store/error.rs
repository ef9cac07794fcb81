//! What can go wrong with a store, said so that the caller knows what to do.
//!
//! [`OpenError`] is for start-up (open, migrate, a schema that is behind):
//! the process reports it and stops. [`StoreError`] is for a request: the
//! HTTP edge answers 400 for [`StoreError::Input`] (a retry sends the same
//! bytes, and the store will refuse them again) and 503 + `Retry-After` for
//! every other kind, because none of them is the provider's fault.
//!
//! `Display` says what failed at this level only; the cause is the
//! `source()` chain, which the one place that logs an error prints with
//! [`StoreError::chain`].

use std::error::Error;
use std::fmt;
use std::time::Duration;

/// A cause, kept as the error's source.
pub type BoxError = Box<dyn Error + Send + Sync>;

/// A store failure while serving a request.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store did not answer, refused the connection, or is overloaded.
    #[error("{op}: store unavailable")]
    Unavailable {
        op: &'static str,
        #[source]
        source: BoxError,
    },
    /// No answer within `store.timeout`.
    #[error("{op}: no answer from the store within {limit:?}")]
    Timeout { op: &'static str, limit: Duration },
    /// The values cannot be stored as they are (PostgreSQL refuses a NUL
    /// character in text, a value is too large for its column, ...).
    #[error("{op}: the store cannot hold this input")]
    Input {
        op: &'static str,
        #[source]
        source: BoxError,
    },
    /// The store answered something this code does not expect (a schema
    /// changed under it, a reply of the wrong shape): a defect to report.
    #[error("{op}: unexpected answer from the store")]
    Internal {
        op: &'static str,
        #[source]
        source: BoxError,
    },
}

impl StoreError {
    /// The operation that failed (`claim`, `commit`, `lease`, ...).
    pub fn op(&self) -> &'static str {
        match self {
            StoreError::Unavailable { op, .. }
            | StoreError::Timeout { op, .. }
            | StoreError::Input { op, .. }
            | StoreError::Internal { op, .. } => op,
        }
    }

    /// Whether trying the same call again can succeed: true for an outage
    /// or a timeout, false for input the store refuses and for defects.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            StoreError::Unavailable { .. } | StoreError::Timeout { .. }
        )
    }

    /// Whether the caller's input is at fault (answered 400, and never
    /// counted or logged as a store failure).
    pub fn is_input(&self) -> bool {
        matches!(self, StoreError::Input { .. })
    }

    /// This error and every cause below it, for the one log line.
    pub fn chain(&self) -> Chain<'_> {
        Chain(self)
    }

    /// A reply of the wrong shape.
    pub(crate) fn internal(op: &'static str, why: impl Into<String>) -> StoreError {
        StoreError::Internal {
            op,
            source: why.into().into(),
        }
    }

    /// Classify a database error (`map_err(StoreError::sqlx("commit"))`).
    pub(crate) fn sqlx(op: &'static str) -> impl FnOnce(sqlx::Error) -> StoreError {
        move |e| Kind::of_sqlx(&e).error(op, Box::new(e))
    }

    /// Classify an error of the embedded store's write lane, whose
    /// statements go to SQLite directly (`embedded/stmt.rs`).
    pub(crate) fn sqlite(op: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
        move |e| Kind::of_rusqlite(&e).error(op, Box::new(e))
    }

    /// Classify a Redis error.
    pub(crate) fn redis(op: &'static str) -> impl FnOnce(redis::RedisError) -> StoreError {
        move |e| {
            // A reply of another shape than the script promises is ours;
            // anything else (I/O, timeouts, cluster moves, LOADING, BUSY,
            // OOM, a refused connection) may well pass on the next try.
            let kind = if matches!(e.kind(), redis::ErrorKind::TypeError) {
                Kind::Internal
            } else {
                Kind::Unavailable
            };
            kind.error(op, Box::new(FromRedis(e)))
        }
    }

    /// Whether Redis failed (else the SQL database, or for a timeout
    /// either).
    pub fn from_redis(&self) -> bool {
        self.source().is_some_and(|s| s.is::<FromRedis>())
    }

    /// The same failure for every caller of one failed group-commit
    /// statement (`sqlx::Error` cannot be cloned; its message can).
    pub(crate) fn shared(op: &'static str, e: &sqlx::Error) -> StoreError {
        Kind::of_sqlx(e).error(op, e.to_string().into())
    }

    /// The same failure again, for each caller of a failed batch: its kind
    /// and operation kept, its cause as text (a Redis cause stays one).
    pub(crate) fn copied(&self) -> StoreError {
        let copy = |source: &BoxError| -> BoxError {
            match source.downcast_ref::<FromRedis>() {
                Some(FromRedis(e)) => Box::new(FromRedis(redis::RedisError::from((
                    e.kind(),
                    "a batch failed",
                    e.to_string(),
                )))),
                None => source.to_string().into(),
            }
        };
        let op = self.op();
        match self {
            StoreError::Unavailable { source, .. } => StoreError::Unavailable {
                op,
                source: copy(source),
            },
            StoreError::Timeout { limit, .. } => StoreError::Timeout { op, limit: *limit },
            StoreError::Input { source, .. } => StoreError::Input {
                op,
                source: copy(source),
            },
            StoreError::Internal { source, .. } => StoreError::Internal {
                op,
                source: copy(source),
            },
        }
    }

    /// The same failure for every write of one failed transaction of the
    /// embedded store's write lane.
    pub(crate) fn shared_sqlite(op: &'static str, e: &rusqlite::Error) -> StoreError {
        Kind::of_rusqlite(e).error(op, e.to_string().into())
    }
}

/// A Redis failure, named so the log line says which store failed.
#[derive(Debug, thiserror::Error)]
#[error("Redis")]
struct FromRedis(#[source] redis::RedisError);

/// How a failure is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Unavailable,
    Input,
    Internal,
}

impl Kind {
    fn error(self, op: &'static str, source: BoxError) -> StoreError {
        match self {
            Kind::Unavailable => StoreError::Unavailable { op, source },
            Kind::Input => StoreError::Input { op, source },
            Kind::Internal => StoreError::Internal { op, source },
        }
    }

    fn of_sqlx(e: &sqlx::Error) -> Kind {
        use sqlx::Error as E;
        match e {
            E::Database(db) => match db.code() {
                Some(code)
                    if db
                        .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
                        .is_some() =>
                {
                    Kind::of_sqlstate(&code)
                }
                Some(code) => Kind::of_sqlite(code.parse().unwrap_or(0)),
                None => Kind::Internal,
            },
            // A value sqlx cannot encode for the wire is the input's fault.
            E::Encode(_) => Kind::Input,
            E::RowNotFound
            | E::TypeNotFound { .. }
            | E::ColumnIndexOutOfBounds { .. }
            | E::ColumnNotFound(_)
            | E::ColumnDecode { .. }
            | E::Decode(_)
            | E::Configuration(_)
            | E::Migrate(_)
            | E::InvalidArgument(_) => Kind::Internal,
            // I/O, TLS, protocol, pool timeouts and closures, a crashed
            // worker: the connection or the server, not the request.
            _ => Kind::Unavailable,
        }
    }

    fn of_rusqlite(e: &rusqlite::Error) -> Kind {
        match e {
            rusqlite::Error::SqliteFailure(failure, _) => Kind::of_sqlite(failure.extended_code),
            // A value that cannot be bound as it is: the input's fault.
            rusqlite::Error::ToSqlConversionFailure(_) => Kind::Input,
            _ => Kind::Internal,
        }
    }

    /// PostgreSQL SQLSTATE codes.
    fn of_sqlstate(code: &str) -> Kind {
        match code {
            // character_not_in_repertoire (a NUL in text),
            // untranslatable_character, string_data_right_truncation,
            // numeric_value_out_of_range, invalid_text_representation,
            // invalid_byte_sequence_for_encoding... and program_limit_exceeded
            // (an index row too large for a very long key).
            "22021" | "22P05" | "22001" | "22003" | "22P02" | "54000" => Kind::Input,
            _ => match code.get(..2) {
                // connection_exception, insufficient_resources (disk full,
                // too many connections), operator_intervention (shutdown,
                // cannot connect now), transaction_rollback (serialization,
                // deadlock), system_error, lock_not_available.
                Some("08" | "53" | "57" | "40" | "58" | "55") => Kind::Unavailable,
                _ => Kind::Internal,
            },
        }
    }

    /// SQLite result codes (primary code in the low byte of the extended).
    fn of_sqlite(code: i32) -> Kind {
        match code & 0xff {
            // SQLITE_TOOBIG: a string or blob over the size limit.
            18 => Kind::Input,
            // BUSY, LOCKED, NOMEM, IOERR, FULL, CANTOPEN, PROTOCOL.
            5 | 6 | 7 | 10 | 13 | 14 | 15 => Kind::Unavailable,
            _ => Kind::Internal,
        }
    }
}

/// A store could not be opened at start-up.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// A setting the store needs is missing or unusable. Never quotes the
    /// value: a URL may carry a password.
    #[error("{key}: {reason}")]
    Setting {
        key: &'static str,
        reason: &'static str,
    },
    /// The store could not be reached or created.
    #[error("cannot open the {what}")]
    Connect {
        what: &'static str,
        #[source]
        source: BoxError,
    },
    #[error("migrations failed")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("the database schema is behind: run `hookline migrate` ({0})")]
    SchemaBehind(String),
    /// The database does not exist and this role may not create it.
    #[error("database {name:?} does not exist and this role may not create it: create it as a role that may (`createdb {name}` or `CREATE DATABASE \"{name}\"`), then run `hookline migrate` again")]
    CannotCreate { name: String },
}

impl OpenError {
    pub(crate) fn connect(what: &'static str) -> impl FnOnce(sqlx::Error) -> OpenError {
        move |e| OpenError::Connect {
            what,
            source: Box::new(e),
        }
    }
}

/// Displays an error and its causes, `outer: inner: innermost`.
pub struct Chain<'a>(&'a (dyn Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut cause = self.0.source();
        while let Some(e) = cause {
            write!(f, ": {e}")?;
            cause = e.source();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_refusing_a_value_is_an_input_error_and_outages_are_retryable() {
        assert_eq!(Kind::of_sqlstate("22021"), Kind::Input);
        assert_eq!(Kind::of_sqlstate("22P05"), Kind::Input);
        assert_eq!(Kind::of_sqlstate("57P01"), Kind::Unavailable);
        assert_eq!(Kind::of_sqlstate("40001"), Kind::Unavailable);
        assert_eq!(Kind::of_sqlstate("42P01"), Kind::Internal);
        assert_eq!(Kind::of_sqlite(5), Kind::Unavailable);
        assert_eq!(Kind::of_sqlite(18), Kind::Input);
        assert_eq!(Kind::of_sqlite(2067), Kind::Internal);
    }

    #[test]
    fn the_chain_names_every_cause_once() {
        let e = StoreError::Unavailable {
            op: "claim",
            source: "connection refused".into(),
        };
        assert_eq!(e.to_string(), "claim: store unavailable");
        assert_eq!(
            e.chain().to_string(),
            "claim: store unavailable: connection refused"
        );
        assert!(e.is_retryable() && !e.is_input());
    }

    #[test]
    fn a_copy_for_each_write_of_a_batch_keeps_its_kind_and_its_store() {
        let io = redis::RedisError::from((redis::ErrorKind::IoError, "broken pipe"));
        let e = StoreError::redis("finish")(io);
        let copy = e.copied();
        assert_eq!(copy.op(), "finish");
        assert!(copy.is_retryable() && copy.from_redis());
        assert!(
            copy.chain().to_string().contains("broken pipe"),
            "{}",
            copy.chain()
        );
        let bad = StoreError::internal("finish", "2 answers for 3 entries").copied();
        assert!(!bad.is_retryable() && !bad.from_redis());
        assert!(bad.chain().to_string().ends_with("2 answers for 3 entries"));
    }
}
