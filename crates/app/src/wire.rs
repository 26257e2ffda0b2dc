//! The page ↔ worker messages' encoding: positional bytes, every field in declaration order,
//! integers as LEB128 varints, `f64` as its 8 bytes, a string or list as its length then its
//! items, an `Option` or an enum as one byte. Page and worker run the same wasm module, so both
//! sides always agree on the layout; nothing else reads these bytes.
//!
//! Why not JSON (as before) or a serde format: serde's derived `Deserialize` of the two message
//! enums and of every core type they carry was about 60 KB of code in the bundle (a visitor per
//! type, field-name matching, buffering for defaults), and a hand-written reader over the same
//! JSON saved nothing (`docs/performance.md`, Bundle). Here each field is one call. A positional
//! serde format (postcard) cannot read the core's types back: they skip empty fields when
//! serialised for the CLI's JSON (`skip_serializing_if`). So the fields are listed once, in
//! [`wire_struct!`] and [`wire_enum!`], next to the types they encode (`crate::protocol`).
//!
//! A message that does not decode whole (bytes left over, a length past the end, a bad tag,
//! text that is not UTF-8) decodes to `None`.

use std::rc::Rc;

/// A value as message bytes.
pub trait Wire: Sized {
    fn put(&self, out: &mut Vec<u8>);
    /// Reads a value. Bytes that do not make one mark the reader failed, and a placeholder
    /// (zero, empty, the first variant) stands in: no reader returns early, so none has a
    /// path that drops what it read so far (that cleanup was a third of the readers' code).
    fn get(r: &mut Reader) -> Self;
}

/// The bytes of a message being read.
pub struct Reader<'a> {
    bytes: &'a [u8],
    failed: bool,
}

impl<'a> Reader<'a> {
    pub fn fail(&mut self) {
        self.failed = true;
    }

    pub fn byte(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&b, rest)) => {
                self.bytes = rest;
                b
            }
            None => {
                self.fail();
                0
            }
        }
    }

    fn take(&mut self, n: usize) -> &'a [u8] {
        if n > self.bytes.len() {
            self.fail();
            return &[];
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        head
    }

    /// An unsigned LEB128 varint of at most 64 bits.
    pub fn varint(&mut self) -> u64 {
        let mut v = 0u64;
        let mut shift = 0;
        while !self.failed {
            let b = self.byte();
            if shift == 63 && b > 1 {
                break;
            }
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return v;
            }
            shift += 7;
        }
        self.fail();
        0
    }

    /// A length, checked against what is left (each item takes at least one byte), so a
    /// corrupt length cannot make a reader reserve memory for items that are not there.
    fn len(&mut self) -> usize {
        let n = self.varint();
        if n > self.bytes.len() as u64 {
            self.fail();
            return 0;
        }
        n as usize
    }
}

/// Writes an unsigned LEB128 varint.
pub fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A value's message bytes.
pub fn encode<T: Wire>(v: &T) -> Vec<u8> {
    let mut out = Vec::new();
    v.put(&mut out);
    out
}

/// Values read one after another from message bytes (several posted as one message); `None`
/// unless the bytes are whole values, at least one.
pub fn decode_all<T: Wire>(bytes: &[u8]) -> Option<Vec<T>> {
    let mut r = Reader { bytes, failed: bytes.is_empty() };
    let mut out = Vec::new();
    while !r.failed && !r.bytes.is_empty() {
        out.push(T::get(&mut r));
    }
    (!r.failed).then_some(out)
}

/// A value read from message bytes; `None` unless they are exactly one value.
pub fn decode<T: Wire>(bytes: &[u8]) -> Option<T> {
    let mut r = Reader { bytes, failed: false };
    let v = T::get(&mut r);
    (!r.failed && r.bytes.is_empty()).then_some(v)
}

macro_rules! wire_uint {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn put(&self, out: &mut Vec<u8>) {
                put_varint(*self as u64, out)
            }
            fn get(r: &mut Reader) -> Self {
                let v = r.varint();
                <$t>::try_from(v).unwrap_or_else(|_| {
                    r.fail();
                    0
                })
            }
        }
    )*};
}
wire_uint!(u8, u16, u32, u64, usize);

impl Wire for i64 {
    fn put(&self, out: &mut Vec<u8>) {
        // Zigzag: small negative numbers stay short.
        put_varint(((*self << 1) ^ (*self >> 63)) as u64, out)
    }
    fn get(r: &mut Reader) -> Self {
        let v = r.varint();
        (v >> 1) as i64 ^ -((v & 1) as i64)
    }
}

impl Wire for bool {
    fn put(&self, out: &mut Vec<u8>) {
        out.push(*self as u8)
    }
    fn get(r: &mut Reader) -> Self {
        let b = r.byte();
        if b > 1 {
            r.fail();
        }
        b == 1
    }
}

impl Wire for f64 {
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes())
    }
    fn get(r: &mut Reader) -> Self {
        r.take(8).try_into().map_or(0.0, f64::from_le_bytes)
    }
}

fn put_str(s: &str, out: &mut Vec<u8>) {
    put_varint(s.len() as u64, out);
    out.extend_from_slice(s.as_bytes())
}

fn get_str<'a>(r: &mut Reader<'a>) -> &'a str {
    let n = r.len();
    std::str::from_utf8(r.take(n)).unwrap_or_else(|_| {
        r.fail();
        ""
    })
}

impl Wire for String {
    fn put(&self, out: &mut Vec<u8>) {
        put_str(self, out)
    }
    fn get(r: &mut Reader) -> Self {
        get_str(r).to_owned()
    }
}

impl Wire for Rc<str> {
    fn put(&self, out: &mut Vec<u8>) {
        put_str(self, out)
    }
    fn get(r: &mut Reader) -> Self {
        Rc::from(get_str(r))
    }
}

impl<T: Wire> Wire for Option<T> {
    fn put(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(v) => {
                out.push(1);
                v.put(out)
            }
        }
    }
    fn get(r: &mut Reader) -> Self {
        match r.byte() {
            0 => None,
            1 => Some(T::get(r)),
            _ => {
                r.fail();
                None
            }
        }
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn put(&self, out: &mut Vec<u8>) {
        put_varint(self.len() as u64, out);
        for v in self {
            v.put(out)
        }
    }
    fn get(r: &mut Reader) -> Self {
        let n = r.len();
        let mut v = Vec::with_capacity(n);
        while v.len() < n && !r.failed {
            v.push(T::get(r));
        }
        v
    }
}

impl<T: Wire> Wire for Box<T> {
    fn put(&self, out: &mut Vec<u8>) {
        (**self).put(out)
    }
    fn get(r: &mut Reader) -> Self {
        Box::new(T::get(r))
    }
}

impl<T: Wire> Wire for Rc<T> {
    fn put(&self, out: &mut Vec<u8>) {
        (**self).put(out)
    }
    fn get(r: &mut Reader) -> Self {
        Rc::new(T::get(r))
    }
}

impl<A: Wire, B: Wire> Wire for (A, B) {
    fn put(&self, out: &mut Vec<u8>) {
        self.0.put(out);
        self.1.put(out)
    }
    fn get(r: &mut Reader) -> Self {
        let a = A::get(r);
        (a, B::get(r))
    }
}

/// A struct as its fields in the order listed (declaration order, by convention); the fields
/// after `skip` are not sent and read back as their `Default`.
macro_rules! wire_struct {
    ($t:ty { $($f:ident),* $(,)? } $(skip { $($s:ident),* $(,)? })?) => {
        impl $crate::wire::Wire for $t {
            fn put(&self, out: &mut Vec<u8>) {
                $($crate::wire::Wire::put(&self.$f, out);)*
            }
            fn get(r: &mut $crate::wire::Reader) -> Self {
                Self {
                    $($f: $crate::wire::Wire::get(r),)*
                    $($($s: Default::default(),)*)?
                }
            }
        }
    };
}

/// An enum as one byte, the index of its variant in the list, then the variant's fields.
/// Unit variants are listed bare, variants with named fields with their fields; every variant
/// and every field must be listed (the writer's match and patterns do not compile otherwise).
macro_rules! wire_enum {
    ($t:ty { $($v:ident $({ $($f:ident),* $(,)? })?),* $(,)? }) => {
        impl $crate::wire::Wire for $t {
            // A match, so a variant missing from the list does not compile. Each variant's
            // tag is a local named after it (its index in the list).
            #[allow(unused_assignments, non_snake_case)]
            fn put(&self, out: &mut Vec<u8>) {
                let mut next = 0u8;
                $(
                    let $v = next;
                    next += 1;
                )*
                match self {
                    $(
                        Self::$v $({ $($f),* })? => {
                            out.push($v);
                            $($($crate::wire::Wire::put($f, out);)*)?
                        }
                    )*
                }
            }
            #[allow(unused_assignments)]
            fn get(r: &mut $crate::wire::Reader) -> Self {
                let mut want = r.byte();
                loop {
                    let mut tag = 0u8;
                    $(
                        if want == tag {
                            return Self::$v $({ $($f: $crate::wire::Wire::get(r)),* })?;
                        }
                        tag += 1;
                    )*
                    // An unknown kind: the reader fails, and the first variant stands in.
                    r.fail();
                    want = 0;
                }
            }
        }
    };
}

pub(crate) use {wire_enum, wire_struct};

// The core's types the messages carry, field by field as the core declares them (every field
// its JSON carries; `Candidate::features` is not serialised there either).
mod core_types {
    use trajscope_core::attribution::classify::Signals;
    use trajscope_core::attribution::rules::Rule;
    use trajscope_core::attribution::{Candidate, Critical, Evidence, InstanceState, Trigger};
    use trajscope_core::dataset::Style;
    use trajscope_core::diff::{Comparison, Counts, Divergence, Pair, PairKind, Side};
    use trajscope_core::labels::Label;
    use trajscope_core::model::{GoldLabel, IngestStats, Outcome, Usage};
    use trajscope_core::record::{AttributionRecord, Category, FailureClass, FailureMode, Phase};
    use trajscope_core::redact::TraceFinding;
    use trajscope_core::report::{FlaggedRef, Overview, QuarantineRecord};
    use trajscope_core::session::steps::SourceSpan;
    use trajscope_core::session::{StepColumns, StepView};
    use trajscope_core::usage::{AgentUsage, UsageSummary};
    use trajscope_core::views::{Grain, StepParts};

    wire_enum!(Outcome { Failed, Passed, Unknown });
    wire_enum!(Grain { High, Medium, Low });
    wire_enum!(Style { Trajerrbench, WhoAndWhen });
    wire_enum!(Category { TaskConflict, HistoryConflict, IntraStepConflict, EnvironmentAnomaly });
    wire_enum!(Phase { Planning, Reasoning, Action, Observation, Verification });
    wire_enum!(FailureClass {
        AgentFailure,
        VerificationFailure,
        EnvironmentBlocker,
        FlakyBlocker,
        HarnessBlocker,
    });
    wire_enum!(FailureMode { Transient, Deterministic, Reasoning });
    wire_enum!(InstanceState { CheapResolution, CostlyResolution, ManifestActive, LatentActive });
    wire_enum!(PairKind { Equal, Changed, LeftOnly, RightOnly });
    wire_enum!(Rule {
        FailedCommand,
        EditBrokeTest,
        VerifierRejected,
        MemoryMisapplied,
        ClaimContradicted,
        RepeatedAction,
        EnvironmentBlocker,
        FlakyBlocker,
        HarnessBlocker,
        BudgetExhausted,
        PlaceholderCommand,
        TaskConstraintBroken,
        AnswerOrigin,
        PrecedingInstruction,
        PlanOrigin,
        AgentFirstStep,
        AgentStep,
    });

    wire_struct!(IngestStats { bytes, lines_total, lines_parsed, lines_blank, lines_quarantined });
    wire_struct!(QuarantineRecord {
        line,
        offset,
        reason,
        truncated_tail,
        raw_base64,
        raw,
        redacted,
    });
    wire_struct!(TraceFinding { trajectory, step, line, field, kind });
    wire_struct!(GoldLabel { step, agent, reason, category });
    wire_struct!(Evidence { step, kind, quote, rule });
    wire_struct!(Critical { step, line, agent, action_id, evidence });
    wire_struct!(Candidate {
        step,
        line,
        agent,
        score,
        category,
        phase,
        state,
        evidence,
        instance,
        why,
    } skip { features });
    wire_struct!(Signals {
        repeated_actions,
        repeated_failures,
        attempts,
        repetition,
        attempts_exceeded,
        budget_exhausted,
        escalate,
    });
    wire_struct!(Trigger {
        step,
        category,
        phase,
        wrong_quote,
        reference_quote,
        reference_step,
        rule,
        object,
        blocker,
    });
    wire_struct!(AttributionRecord {
        failure_event,
        failure_event_step,
        failure_turn_id,
        failed_artifact_refs,
        source_action_ids,
        verifier_action_id,
        touched_action_ids,
        memory_read_node_ids,
        evidence_refs,
        root_cause_summary,
        verification_probe_candidate,
        classification,
        failure_mode,
        attribution_heuristics,
    });
    wire_struct!(UsageSummary {
        input_tokens,
        output_tokens,
        cache_read_tokens,
        cache_write_tokens,
        cost_usd,
        duration_ms,
        steps_with_usage,
    });
    wire_struct!(AgentUsage { agent, steps, usage });
    wire_struct!(FlaggedRef { reference, reason, step });
    wire_struct!(Overview {
        id,
        steps,
        outcome,
        task,
        gold,
        errors,
        agents,
        roles,
        repeated_action,
        analysed,
        critical,
        candidates,
        classification,
        failure_mode,
        signals,
        triggers,
        record,
        usage,
        agent_usage,
        flagged_artifact_refs,
    });
    wire_struct!(StepColumns { line, is_error, role, actor, actors, kind, tokens, stalls });
    wire_struct!(Usage {
        input_tokens,
        output_tokens,
        cache_read_tokens,
        cache_write_tokens,
        cost_usd,
        duration_ms,
    });
    wire_struct!(StepParts { tool, args, text, refs, exit_code, status, details });
    wire_struct!(SourceSpan { offset, len });
    wire_struct!(StepView { index, grain, text, full_chars, timestamp, usage, parts, source });
    wire_struct!(Side { id, steps, outcome, critical_step });
    wire_struct!(Divergence { pair, left_step, right_step });
    wire_struct!(Counts { equal, changed, left_only, right_only });
    wire_struct!(Pair { kind, left, right });
    wire_struct!(Comparison { left, right, first_divergence, counts, pairs });
    wire_struct!(Label {
        schema_version,
        content_hash,
        trajectory_id,
        critical_step,
        responsible_agent,
        category,
        phase,
        rationale,
        annotator,
        time,
        outcome,
    });
}
