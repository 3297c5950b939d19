//! The tenants of a scenario, in id order: tenants with a name of their own
//! (declared, referenced by the workload, met in a trace) and generated
//! sets (`tenants: {count, prefix}`), which are stored as one record each,
//! not one per tenant: 10,000,000 generated tenants cost a few bytes, and
//! their names are written out only when an output needs one.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write;

use super::TenantId;

/// Most tenants in a scenario, declared, generated and met in traces: the
/// per-tenant records of a run then stay under about 2 GB.
pub const MAX_TENANTS: u32 = 20_000_000;

/// A tenant with a name of its own.
#[derive(Debug, Clone, PartialEq)]
pub struct TenantSpec {
    pub name: String,
    /// Relative share for weighted policies (> 0).
    pub weight: f64,
    /// Maximum jobs running at once, enforced by the engine at claim time.
    pub cap: Option<u32>,
}

/// A policy entry's own weight or cap for one tenant (`tenants:` on the
/// entry); each `None` keeps the scenario's.
#[derive(Debug, Clone, PartialEq)]
pub struct TenantChange {
    pub id: TenantId,
    pub weight: Option<f64>,
    pub cap: Option<u32>,
}

/// A run of consecutive ids.
#[derive(Debug, Clone, PartialEq)]
enum Block {
    /// Ids `first..first + len` are `named[at..at + len]`.
    Named { first: TenantId, at: usize, len: u32 },
    /// Ids `first..first + count` are `{prefix}{i:0width$}`.
    Generated { first: TenantId, set: GeneratedSet },
}

/// A generated set of tenants: `count` names `prefix` + a zero-padded index.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedSet {
    pub prefix: String,
    pub count: u32,
    pub weight: f64,
    pub cap: Option<u32>,
}

impl GeneratedSet {
    /// Digits of the index: as many as `count - 1` has (`t0`..`t9`, `t00`..`t99`).
    pub fn width(&self) -> usize {
        (self.count.max(1) - 1).to_string().len()
    }

    /// The index of `name` in this set, if it is one of its names.
    pub fn index_of(&self, name: &str) -> Option<u32> {
        let digits = name.strip_prefix(self.prefix.as_str())?;
        if digits.len() != self.width() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u32>().ok().filter(|&i| i < self.count)
    }
}

impl Block {
    fn first(&self) -> TenantId {
        match self {
            Block::Named { first, .. } | Block::Generated { first, .. } => *first,
        }
    }
}

/// Every tenant of a scenario.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tenants {
    named: Vec<TenantSpec>,
    /// Id of each named tenant, by name.
    by_name: HashMap<String, TenantId>,
    blocks: Vec<Block>,
    len: u32,
    /// Generated tenants with a weight or cap of their own (a name of the
    /// set declared under `tenants:`), by id; few, so a map.
    overrides: HashMap<TenantId, (f64, Option<u32>)>,
}

impl Tenants {
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends a tenant with a name of its own; returns its id. The caller
    /// has checked that no tenant has this name ([`Tenants::id_of`]).
    pub fn push_named(&mut self, spec: TenantSpec) -> TenantId {
        let id = self.len;
        self.by_name.insert(spec.name.clone(), id);
        self.named.push(spec);
        match self.blocks.last_mut() {
            Some(Block::Named { len, .. }) => *len += 1,
            _ => self.blocks.push(Block::Named { first: id, at: self.named.len() - 1, len: 1 }),
        }
        self.len += 1;
        id
    }

    /// Appends a generated set; returns its first id. The caller has checked
    /// that none of its names is taken ([`Tenants::clashes`]).
    pub fn push_generated(&mut self, set: GeneratedSet) -> TenantId {
        let first = self.len;
        self.len += set.count;
        self.blocks.push(Block::Generated { first, set });
        first
    }

    /// Gives generated tenant `id` a weight and cap of its own.
    pub fn set_override(&mut self, id: TenantId, weight: f64, cap: Option<u32>) {
        self.overrides.insert(id, (weight, cap));
    }

    /// Applies a policy entry's change to one tenant, named or generated.
    pub fn apply(&mut self, change: &TenantChange) {
        let (weight, cap) = self.share(change.id);
        let (weight, cap) = (change.weight.unwrap_or(weight), change.cap.or(cap));
        let named = match self.block(change.id) {
            Block::Named { first, at, .. } => Some(at + (change.id - first) as usize),
            Block::Generated { .. } => None,
        };
        match named {
            Some(i) => (self.named[i].weight, self.named[i].cap) = (weight, cap),
            None => self.set_override(change.id, weight, cap),
        }
    }

    /// The generated sets, with their first ids.
    pub fn generated(&self) -> impl Iterator<Item = (TenantId, &GeneratedSet)> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Generated { first, set } => Some((*first, set)),
            Block::Named { .. } => None,
        })
    }

    /// The block holding `id`.
    fn block(&self, id: TenantId) -> &Block {
        let i = self.blocks.partition_point(|b| b.first() <= id) - 1;
        &self.blocks[i]
    }

    /// The id of the tenant called `name`.
    pub fn id_of(&self, name: &str) -> Option<TenantId> {
        self.by_name
            .get(name)
            .copied()
            .or_else(|| self.generated().find_map(|(first, set)| set.index_of(name).map(|i| first + i)))
    }

    /// A name of `set` that is already a tenant's, if any: a named tenant
    /// matching its pattern, or a name shared with another generated set.
    pub fn clashes(&self, set: &GeneratedSet) -> Option<String> {
        if let Some(t) = self.named.iter().find(|t| set.index_of(&t.name).is_some()) {
            return Some(t.name.clone());
        }
        let len = set.prefix.len() + set.width();
        for (_, other) in self.generated() {
            // the same name length with one prefix extending the other by
            // digits: names may coincide (checked on the shorter set's range)
            if other.prefix.len() + other.width() != len {
                continue;
            }
            let (short, long) =
                if other.prefix.len() <= set.prefix.len() { (other, set) } else { (set, other) };
            if let Some(rest) = long.prefix.strip_prefix(short.prefix.as_str()) {
                if rest.bytes().all(|b| b.is_ascii_digit()) {
                    let candidate = format!("{}{:0w$}", long.prefix, 0, w = long.width());
                    if short.index_of(&candidate).is_some() || long.prefix == short.prefix {
                        return Some(candidate);
                    }
                }
            }
        }
        None
    }

    /// The tenant's name.
    pub fn name(&self, id: TenantId) -> Cow<'_, str> {
        match self.block(id) {
            Block::Named { first, at, .. } => Cow::Borrowed(&self.named[at + (id - first) as usize].name),
            Block::Generated { first, set } => {
                Cow::Owned(format!("{}{:0w$}", set.prefix, id - first, w = set.width()))
            }
        }
    }

    /// Appends the tenant's name to `out` (no allocation for generated names).
    pub fn write_name(&self, id: TenantId, out: &mut String) {
        match self.block(id) {
            Block::Named { first, at, .. } => out.push_str(&self.named[at + (id - first) as usize].name),
            Block::Generated { first, set } => {
                out.push_str(&set.prefix);
                let _ = write!(out, "{:0w$}", id - first, w = set.width());
            }
        }
    }

    pub fn weight(&self, id: TenantId) -> f64 {
        self.share(id).0
    }

    pub fn cap(&self, id: TenantId) -> Option<u32> {
        self.share(id).1
    }

    /// (weight, cap) of tenant `id`.
    fn share(&self, id: TenantId) -> (f64, Option<u32>) {
        match self.block(id) {
            Block::Named { first, at, .. } => {
                let t = &self.named[at + (id - first) as usize];
                (t.weight, t.cap)
            }
            Block::Generated { set, .. } => self.overrides.get(&id).copied().unwrap_or((set.weight, set.cap)),
        }
    }

    /// (weight, cap) of every tenant in id order, without names.
    pub fn shares(&self) -> impl Iterator<Item = (f64, Option<u32>)> + '_ {
        self.blocks.iter().flat_map(move |b| -> Box<dyn Iterator<Item = (f64, Option<u32>)> + '_> {
            match b {
                Block::Named { at, len, .. } => {
                    Box::new(self.named[*at..*at + *len as usize].iter().map(|t| (t.weight, t.cap)))
                }
                Block::Generated { set, .. } if self.overrides.is_empty() => {
                    Box::new(std::iter::repeat_n((set.weight, set.cap), set.count as usize))
                }
                Block::Generated { first, set } => Box::new(
                    (*first..*first + set.count)
                        .map(|id| self.overrides.get(&id).copied().unwrap_or((set.weight, set.cap))),
                ),
            }
        })
    }

    /// Every tenant's name, in id order (generated names formatted one by one).
    pub fn names(&self) -> impl Iterator<Item = Cow<'_, str>> + '_ {
        (0..self.len).map(|t| self.name(t))
    }

    /// The bytes of every tenant's name together, without formatting the
    /// generated ones (a log estimate needs it for millions of tenants).
    pub fn name_bytes(&self) -> u64 {
        let named: u64 = self.named.iter().map(|t| t.name.len() as u64).sum();
        let generated: u64 = (self.blocks.iter())
            .map(|b| match b {
                Block::Generated { set, .. } => {
                    u64::from(set.count) * (set.prefix.len() + set.width()) as u64
                }
                Block::Named { .. } => 0,
            })
            .sum();
        named + generated
    }

    /// The weight of every tenant in id order.
    pub fn weights(&self) -> Vec<f64> {
        self.shares().map(|(w, _)| w).collect()
    }

    /// Whether any tenant has a cap.
    pub fn any_cap(&self) -> bool {
        self.named.iter().any(|t| t.cap.is_some())
            || self.overrides.values().any(|(_, c)| c.is_some())
            || self.blocks.iter().any(|b| matches!(b, Block::Generated { set, .. } if set.cap.is_some()))
    }

    /// The cap of every tenant in id order (`u32::MAX`: none).
    pub fn caps(&self) -> Vec<u32> {
        self.shares().map(|(_, c)| c.unwrap_or(u32::MAX)).collect()
    }

    /// The named tenant with id `id`, if it has a name of its own.
    pub fn named(&self, id: TenantId) -> Option<&TenantSpec> {
        match self.block(id) {
            Block::Named { first, at, .. } => Some(&self.named[at + (id - first) as usize]),
            Block::Generated { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(prefix: &str, count: u32) -> GeneratedSet {
        GeneratedSet { prefix: prefix.into(), count, weight: 1.0, cap: None }
    }

    #[test]
    fn names_and_ids_round_trip_across_blocks() {
        let mut t = Tenants::default();
        let a = t.push_named(TenantSpec { name: "A".into(), weight: 2.0, cap: Some(1) });
        let g = t.push_generated(set("t", 1000));
        let b = t.push_named(TenantSpec { name: "B".into(), weight: 1.0, cap: None });
        assert_eq!((a, g, b, t.len()), (0, 1, 1001, 1002));
        assert_eq!(t.name(0), "A");
        assert_eq!(t.name(1), "t000");
        assert_eq!(t.name(1000), "t999");
        assert_eq!(t.name(1001), "B");
        assert_eq!(t.id_of("t042"), Some(43));
        assert_eq!(t.id_of("t42"), None, "the width is part of the name");
        assert_eq!(t.id_of("t1000"), None);
        assert_eq!(t.id_of("B"), Some(1001));
        let mut s = String::new();
        t.write_name(500, &mut s);
        assert_eq!(s, "t499");
        assert_eq!((t.weight(0), t.cap(0), t.weight(7), t.cap(7)), (2.0, Some(1), 1.0, None));
        assert_eq!(t.weights().len(), 1002);
        assert_eq!(t.caps()[0], 1);
    }

    #[test]
    fn generated_names_that_are_taken_are_found() {
        let mut t = Tenants::default();
        t.push_named(TenantSpec { name: "t05".into(), weight: 1.0, cap: None });
        assert_eq!(t.clashes(&set("t", 100)), Some("t05".into()));
        assert_eq!(t.clashes(&set("t", 10)), None, "t0..t9 are one digit");
        t.push_generated(set("u", 100));
        // u00..u99 against u100..u199: different lengths, no name in common
        assert_eq!(t.clashes(&set("u1", 100)), None);
        assert_eq!(t.clashes(&set("u", 100)), Some("u00".into()), "the same names twice");
        t.push_generated(set("v", 1000));
        // v000..v999 against v100..v199: v100 is in both
        assert_eq!(t.clashes(&set("v1", 100)), Some("v100".into()));
    }
}
