//! The filter of `ptxsim run --trace-filter`: which threads and which writes a trace keeps.

use crate::{Dim3, Header, Step};

/// Which threads a filter keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Threads {
    /// Grid-wide indices `from..=to`.
    Range(u64, u64),
    /// Every thread of a CTA.
    Cta(Dim3),
    /// The thread with this index in every CTA.
    Tid(Dim3),
    /// One thread: CTA and index in it.
    CtaTid(Dim3, Dim3),
}

/// The `--trace-filter` of `ptxsim run`: which threads and which registers a trace keeps.
///
/// A filter is a list of clauses, separated by `;` (or given as several `--trace-filter`
/// options):
///
/// * `N`, `N-M`, `N,M-K,...` — threads by grid-wide index (`ctaid linear × threads per CTA +
///   tid linear`), ranges inclusive;
/// * `cta=X[,Y,Z]` — every thread of a CTA; `tid=X[,Y,Z]` — that thread of every CTA;
///   `cta=X,Y,Z/tid=X,Y,Z` — one thread;
/// * `reg=NAME[,NAME...]` — only writes to these registers;
/// * `mem` — only memory writes.
///
/// Thread clauses add up (a thread is kept when any clause names it; none: every thread).
/// With `reg=` or `mem`, a step keeps only the chosen writes and is dropped when none is left;
/// without them, steps are kept whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    threads: Vec<Threads>,
    registers: Vec<String>,
    memory: bool,
}

fn dims(text: &str, what: &str) -> Result<Dim3, String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{what}={text}`: expected X, X,Y or X,Y,Z"));
    }
    let mut out = [0; 3];
    for (slot, part) in out.iter_mut().zip(&parts) {
        *slot = part
            .parse()
            .map_err(|_| format!("`{what}={text}`: `{part}` is not a number"))?;
    }
    Ok(out)
}

fn dims_text([x, y, z]: Dim3) -> String {
    format!("{x},{y},{z}")
}

impl Filter {
    /// Parses filter specs (each may hold several `;`-separated clauses).
    pub fn parse<S: AsRef<str>>(specs: &[S]) -> Result<Self, String> {
        let mut filter = Filter::default();
        for clause in specs
            .iter()
            .flat_map(|s| s.as_ref().split(';'))
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            if clause == "mem" {
                filter.memory = true;
            } else if let Some(names) = clause.strip_prefix("reg=") {
                for name in names.split(',').map(str::trim) {
                    if name.is_empty() {
                        return Err(format!("`{clause}`: empty register name"));
                    }
                    if !filter.registers.iter().any(|r| r == name) {
                        filter.registers.push(name.to_string());
                    }
                }
            } else if let Some(rest) = clause.strip_prefix("cta=") {
                match rest.split_once('/') {
                    Some((cta, tid)) => {
                        let tid = tid
                            .trim()
                            .strip_prefix("tid=")
                            .ok_or_else(|| format!("`{clause}`: expected cta=X,Y,Z/tid=X,Y,Z"))?;
                        filter
                            .threads
                            .push(Threads::CtaTid(dims(cta, "cta")?, dims(tid, "tid")?));
                    }
                    None => filter.threads.push(Threads::Cta(dims(rest, "cta")?)),
                }
            } else if let Some(rest) = clause.strip_prefix("tid=") {
                filter.threads.push(Threads::Tid(dims(rest, "tid")?));
            } else {
                let list = clause.strip_prefix("thread=").unwrap_or(clause);
                for item in list.split(',').map(str::trim) {
                    let number = |t: &str| {
                        t.trim().parse::<u64>().map_err(|_| {
                            format!(
                                "`{clause}`: expected thread indices (3, 0-7), cta=X,Y,Z, \
                                 tid=X,Y,Z, cta=X,Y,Z/tid=X,Y,Z, reg=NAME,... or mem"
                            )
                        })
                    };
                    let (from, to) = match item.split_once('-') {
                        Some((from, to)) => (number(from)?, number(to)?),
                        None => (number(item)?, number(item)?),
                    };
                    if from > to {
                        return Err(format!("`{item}`: an empty range"));
                    }
                    filter.threads.push(Threads::Range(from, to));
                }
            }
        }
        Ok(filter)
    }

    /// Whether the filter keeps everything.
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty() && self.registers.is_empty() && !self.memory
    }

    /// The canonical spelling, written in the trace header (`0-3;cta=1,0,0;reg=%r1;mem`).
    pub fn canonical(&self) -> String {
        let mut clauses: Vec<String> = self
            .threads
            .iter()
            .map(|t| match t {
                Threads::Range(from, to) if from == to => from.to_string(),
                Threads::Range(from, to) => format!("{from}-{to}"),
                Threads::Cta(cta) => format!("cta={}", dims_text(*cta)),
                Threads::Tid(tid) => format!("tid={}", dims_text(*tid)),
                Threads::CtaTid(cta, tid) => {
                    format!("cta={}/tid={}", dims_text(*cta), dims_text(*tid))
                }
            })
            .collect();
        if !self.registers.is_empty() {
            clauses.push(format!("reg={}", self.registers.join(",")));
        }
        if self.memory {
            clauses.push("mem".to_string());
        }
        clauses.join(";")
    }

    /// Checks the filter against a launch (threads inside it, registers of the kernel) and
    /// records it in the header.
    pub fn apply_to_header(&self, header: &mut Header) -> Result<(), String> {
        for name in &self.registers {
            if !header.registers.iter().any(|(r, _)| r == name) {
                return Err(format!(
                    "--trace-filter: kernel `{}` has no register `{name}`",
                    header.entry
                ));
            }
        }
        let inside = |index: Dim3, shape: Dim3| index.iter().zip(&shape).all(|(i, d)| i < d);
        for clause in &self.threads {
            let ok = match clause {
                Threads::Range(from, _) => *from < header.threads,
                Threads::Cta(cta) => inside(*cta, header.grid),
                Threads::Tid(tid) => inside(*tid, header.block),
                Threads::CtaTid(cta, tid) => {
                    inside(*cta, header.grid) && inside(*tid, header.block)
                }
            };
            if !ok {
                return Err(format!(
                    "--trace-filter: no thread of the launch (grid {}, block {}, {} threads) \
                     matches `{}`",
                    dims_text(header.grid),
                    dims_text(header.block),
                    header.threads,
                    Filter {
                        threads: vec![clause.clone()],
                        ..Filter::default()
                    }
                    .canonical()
                ));
            }
        }
        if !self.is_empty() {
            header.filter = Some(self.canonical());
        }
        Ok(())
    }

    /// Whether the filter keeps thread `thread` of a launch described by `header`.
    pub fn keeps_thread(&self, header: &Header, thread: u64) -> bool {
        if self.threads.is_empty() {
            return true;
        }
        let (cta, tid) = header.locate(thread);
        self.threads.iter().any(|clause| match clause {
            Threads::Range(from, to) => (*from..=*to).contains(&thread),
            Threads::Cta(c) => *c == cta,
            Threads::Tid(t) => *t == tid,
            Threads::CtaTid(c, t) => *c == cta && *t == tid,
        })
    }

    /// Applies the filter to a step: `false` when the step is dropped; otherwise the writes
    /// the filter does not keep are removed from it.
    pub fn keep(&self, header: &Header, step: &mut Step) -> bool {
        if !self.keeps_thread(header, step.thread) {
            return false;
        }
        if self.registers.is_empty() && !self.memory {
            return true;
        }
        step.writes.retain(|w| self.registers.contains(&w.register));
        if !self.memory {
            step.memory.clear();
        }
        !step.writes.is_empty() || !step.memory.is_empty()
    }
}
