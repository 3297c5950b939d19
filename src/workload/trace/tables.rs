//! Job-table formats: the tables processors write, each a named mapping
//! onto a trace's fields (`format: good_jobs` in a trace entry, or
//! `--trace-format good_jobs`), so a team replays or calibrates against
//! its own table without writing `columns:`. What each reads is in
//! docs/calibrate.md, "Job tables"; the sources in docs/background.md.

use crate::model::{CsvColumns, EventKind, EventLog, TimeFormat, TraceFormat};

/// A job-table format.
pub struct Table {
    pub name: &'static str,
    pub time_format: TimeFormat,
    kind: Kind,
}

enum Kind {
    /// A CSV export with these columns (arrival, tenant, class, priority,
    /// started, finished, id).
    Csv([&'static str; 7]),
    /// An event log with its tenant and class fields.
    Events(EventKind, &'static str, &'static str),
}

/// Every format, by name.
pub const TABLES: [Table; 5] = [
    // GoodJob's `good_jobs` (its install migration): scheduled_at is when
    // the job may run (`created_at` when enqueued without a wait)
    Table {
        name: "good_jobs",
        time_format: TimeFormat::Auto,
        kind: Kind::Csv([
            "scheduled_at",
            "tenant",
            "queue_name",
            "priority",
            "performed_at",
            "finished_at",
            "id",
        ]),
    },
    // BullMQ's job hash (HGETALL bull:QUEUE:ID), epoch milliseconds, with
    // the queue's name from the key
    Table {
        name: "bullmq",
        time_format: TimeFormat::EpochMillis,
        kind: Kind::Csv(["timestamp", "tenant", "queue", "priority", "processedOn", "finishedOn", "id"]),
    },
    // a plain `jobs` table of a home-grown Postgres queue
    Table {
        name: "postgres",
        time_format: TimeFormat::Auto,
        kind: Kind::Csv(["created_at", "tenant", "queue", "priority", "started_at", "finished_at", "id"]),
    },
    Table {
        name: "celery_events",
        time_format: TimeFormat::Auto,
        kind: Kind::Events(EventKind::Celery, "tenant", "queue"),
    },
    Table {
        name: "sidekiq_log",
        time_format: TimeFormat::Auto,
        kind: Kind::Events(EventKind::SidekiqLog, "tenant", "queue"),
    },
];

/// Their names, for messages.
pub const NAMES: [&str; 5] = ["good_jobs", "bullmq", "postgres", "celery_events", "sidekiq_log"];

pub fn find(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

impl Table {
    /// The format with the table's own mapping.
    pub fn format(&self) -> TraceFormat {
        match self.kind {
            Kind::Csv(c) => TraceFormat::Csv(Box::new(self.columns(c))),
            Kind::Events(kind, tenant, class) => {
                TraceFormat::Events(Box::new(EventLog { kind, tenant: tenant.into(), class: class.into() }))
            }
        }
    }

    fn columns(&self, [arrival, tenant, class, priority, started, finished, id]: [&str; 7]) -> CsvColumns {
        CsvColumns {
            arrival: arrival.into(),
            tenant: tenant.into(),
            class: Some(class.into()),
            service: None,
            service_unit: crate::time::SECOND,
            started: Some(started.into()),
            finished: Some(finished.into()),
            priority: Some(priority.into()),
            deadline: None,
            cost: Vec::new(),
            id: Some(id.into()),
        }
    }

    /// Whether it is an event log (whose mapping takes only `tenant` and `class`).
    pub fn is_log(&self) -> bool {
        matches!(self.kind, Kind::Events(..))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_table_is_named_once() {
        let names: Vec<&str> = super::TABLES.iter().map(|t| t.name).collect();
        assert_eq!(names, super::NAMES);
    }
}
