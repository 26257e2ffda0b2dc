//! Properties of the multi-grain views: never over the bound (in chars, multi-byte text
//! included), protected quotes intact in the high view, visible elision markers, determinism.
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use trajscope_core::model::{Role, Step, StepKind, Trajectory};
use trajscope_core::views::{
    self, step_view, step_view_with_quotes, Grain, ViewOptions, GUARANTEED_QUOTES,
};

fn step(text: String, args: Option<String>) -> Step {
    Step {
        index: 3,
        actor: "코더-agent".into(),
        role: Role::Assistant,
        kind: StepKind::Action,
        text,
        tool: Some("shell".into()),
        args,
        exit_code: Some(1),
        is_error: true,
        ..Step::default()
    }
}

fn line_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z ]{0,300}",
        "\\PC{0,200}",
        "(Error|Traceback|FAILED|é|한국어|🙂|x){1,80}",
        "[ab]{0,4000}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn views_never_exceed_their_bound(
        lines in prop::collection::vec(line_strategy(), 0..60),
        args in prop::option::of("\\PC{0,500}"),
        high in 0usize..4000, medium in 0usize..1500, low in 0usize..700,
    ) {
        let s = step(lines.join("\n"), args);
        let opts = ViewOptions { high, medium, low, ..ViewOptions::default() };
        for g in [Grain::High, Grain::Medium, Grain::Low] {
            let v = step_view(&s, g, &opts);
            prop_assert!(v.chars().count() <= opts.bound(g), "{} > {}", v.chars().count(), opts.bound(g));
            prop_assert_eq!(&v, &step_view(&s, g, &opts));
        }
    }

    #[test]
    fn protected_quotes_survive_the_high_view(
        lines in prop::collection::vec(line_strategy(), 1..80),
        picks in prop::collection::vec((any::<prop::sample::Index>(), 0usize..200, 1usize..200), 1..=GUARANTEED_QUOTES),
    ) {
        let text = lines.join("\n");
        let s = step(text.clone(), None);
        let all: Vec<&str> = text.lines().collect();
        let mut quotes: Vec<String> = Vec::new();
        for (ix, from, len) in picks {
            let line = all[ix.index(all.len())];
            let cs: Vec<char> = line.chars().collect();
            if cs.is_empty() { continue; }
            let a = from.min(cs.len() - 1);
            let b = (a + len).min(cs.len()).min(a + 200);
            quotes.push(cs[a..b].iter().collect());
        }
        let qs: Vec<&str> = quotes.iter().map(String::as_str).collect();
        let opts = ViewOptions::default();
        let v = step_view_with_quotes(&s, Grain::High, &opts, &qs);
        prop_assert!(v.chars().count() <= opts.high);
        for q in &qs {
            prop_assert!(v.contains(q), "quote {:?} missing", q);
        }
    }
}

#[test]
fn elisions_are_marked_and_the_error_line_is_kept() {
    let mut text = String::new();
    for i in 0..400 {
        text.push_str(&format!("log line {i} with some ordinary progress output\n"));
    }
    text.push_str("AssertionError: expected 3, got 4\n");
    for i in 0..100 {
        text.push_str(&format!("trailing line {i}\n"));
    }
    let s = step(text, Some("pytest -x tests/test_math.py".into()));
    let opts = ViewOptions::default();
    for g in [Grain::High, Grain::Medium, Grain::Low] {
        let v = step_view(&s, g, &opts);
        assert!(v.contains("AssertionError: expected 3, got 4"), "{g:?}: {v}");
        assert!(v.contains("pytest -x tests/test_math.py"), "{g:?}");
        assert!(v.contains("chars elided] …"), "{g:?}");
        assert!(v.starts_with("#3 코더-agent [assistant/action] tool=shell exit=1 ERROR"), "{v}");
    }
    let short = step("ok".into(), None);
    assert_eq!(
        step_view(&short, Grain::Low, &opts),
        "#3 코더-agent [assistant/action] tool=shell exit=1 ERROR\nok"
    );
}

#[test]
fn history_is_detailed_near_the_step_and_compressed_far_away() {
    let long = "word ".repeat(1000);
    let steps: Vec<Step> =
        (0..12).map(|i| Step { index: i, text: long.clone(), ..Step::default() }).collect();
    let t = Trajectory { id: "t".into(), steps, ..Trajectory::default() };
    let opts = ViewOptions::default();
    let h = views::history(&t, 6, &opts);
    let parts: Vec<&str> = h.split("\n\n").collect();
    assert_eq!(parts.len(), 12);
    let len = |i: usize| parts[i].chars().count();
    assert!(len(6) > len(9) && len(9) > len(0), "{} {} {}", len(6), len(9), len(0));
    assert!(len(6) <= opts.high && len(9) <= opts.medium && len(0) <= opts.low);
}

#[test]
fn a_step_of_one_long_line_uses_its_grains_room() {
    // A message written on one line (12,000 characters) and a long one-line command output:
    // each grain shows most of what its bound allows, and more at a finer grain.
    let opts = ViewOptions::default();
    for text in ["lorem ipsum dolor ".repeat(667), format!("Error: {}", "x".repeat(5000))] {
        let step = Step { text: text.clone(), ..Step::default() };
        let mut last = usize::MAX;
        for (grain, bound) in
            [(Grain::High, opts.high), (Grain::Medium, opts.medium), (Grain::Low, opts.low)]
        {
            let n = views::step_view(&step, grain, &opts).chars().count();
            assert!(n <= bound && n * 10 >= bound * 8, "{grain:?}: {n} of {bound}");
            assert!(n < last, "{grain:?}");
            last = n;
        }
    }
}

#[test]
fn parts_within_their_grain_are_whole_and_count_as_much_as_at_no_bound() {
    // What a step card shows (its parts) is cut only past the grain's bound, and then only it
    // counts less than `step_parts_full_chars` (the "N of M chars" badge).
    let opts = ViewOptions::default();
    for (n, cut_at_high) in [(2_999, false), (3_001, true), (5_000, true)] {
        let s = Step { text: "y".repeat(n), ..Step::default() };
        let full = views::step_parts_full_chars(&s);
        assert_eq!(full, n);
        let high = views::step_parts_with_quotes(&s, Grain::High, &opts, &[]).chars();
        assert_eq!(high < full, cut_at_high, "{n}: {high} of {full}");
    }
}
