use super::*;
use std::collections::BTreeMap;

#[test]
fn english_fills_values_and_picks_cases() {
    let values = |v: Vec<(&'static str, Value)>| v.into_iter().collect::<BTreeMap<_, _>>();
    let plural = "{n, plural, =0 {no steps} one {# step} other {# steps}} of {m}";
    assert_eq!(message::render(plural, &values(vec![("n", 0.into()), ("m", 9.into())])), "no steps of 9");
    assert_eq!(message::render(plural, &values(vec![("n", 1.into()), ("m", 9.into())])), "1 step of 9");
    assert_eq!(message::render(plural, &values(vec![("n", 12.into()), ("m", 9.into())])), "12 steps of 9");
    let select = "the {tied, select, true {tied {what}} other {own}} table";
    let what = Value::from("embedding");
    assert_eq!(
        message::render(select, &values(vec![("tied", true.into()), ("what", what.clone())])),
        "the tied embedding table"
    );
    assert_eq!(message::render(select, &values(vec![("tied", false.into()), ("what", what)])), "the own table");
    assert_eq!(message::render("{x}, {y}", &values(vec![("x", 0.1f32.into()), ("y", fixed(2.0, 3))])), "0.1, 2.000");
}

#[test]
fn a_message_in_a_message_reads_as_its_english() {
    let at = walk::at(3, "'e'");
    let title = walk::token_embedding_title(at.clone());
    assert_eq!(title.english, "Token embedding at position 3 ('e')");
    assert_eq!(title.values["at"], Value::Words(Box::new(at)));
    assert_eq!(title.code, "walk.token_embedding_title");
}

#[test]
fn every_message_names_the_values_it_is_given_and_no_other() {
    let mut codes = std::collections::HashSet::new();
    for m in all() {
        assert!(codes.insert(m.code), "{} is declared twice", m.code);
        let mut used: Vec<&str> = arguments(m.english);
        used.sort_unstable();
        used.dedup();
        let mut given = m.values.to_vec();
        given.sort_unstable();
        assert_eq!(used, given, "{}", m.code);
    }
}

/// The names a template's arguments use, in select and plural cases too.
fn arguments(template: &str) -> Vec<&str> {
    let mut names = vec![];
    for body in top_level(template) {
        let mut parts = body.splitn(3, ',').map(str::trim);
        names.push(parts.next().unwrap_or_default());
        if let (Some("select" | "plural"), Some(cases)) = (parts.next(), parts.next()) {
            names.extend(top_level(cases).into_iter().flat_map(arguments));
        }
    }
    names
}

/// What each outermost `{…}` of `text` holds.
fn top_level(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0, 0, vec![]);
    for (i, c) in text.char_indices() {
        match c {
            '{' if depth == 0 => (depth, start) = (1, i + 1),
            '{' => depth += 1,
            '}' if depth == 1 => {
                depth = 0;
                out.push(&text[start..i]);
            }
            '}' => depth -= 1,
            _ => {}
        }
    }
    out
}
