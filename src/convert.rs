//! Values and errors across the JS boundary.

use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::prelude::*;

/// What every binding returns: a thrown JS `Error` on failure.
pub type JsResult<T> = Result<T, JsValue>;

/// A JS `Error` with `message`.
pub fn fail(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

/// A core error as a JS `Error` carrying the core's message and, for an invalid setting, a
/// `field` property with the setting's path (`train.max_iters`), so the page can show the
/// message beside that field.
pub fn js_error(e: gpt::Error) -> JsValue {
    let error = js_sys::Error::new(&e.to_string());
    if let gpt::Error::Invalid(problem) = &e {
        // Setting a property on a fresh Error object cannot fail.
        let _ = js_sys::Reflect::set(&error, &"field".into(), &problem.field.as_str().into());
    }
    error.into()
}

/// Reads `value` as `T`, naming `what` and the field when it does not fit (a misspelt field, a
/// string where a number belongs, a negative size). It goes through JSON because
/// serde-wasm-bindgen never reports unknown fields.
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> JsResult<T> {
    let json = js_sys::JSON::stringify(&value)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| fail(&format!("{what} must be an object")))?;
    serde_json::from_str(&json).map_err(|e| fail(&format!("{what}: {e}")))
}

/// `value` as a plain JS object (maps as objects, so the page reads fields by name).
pub fn to_js<T: Serialize>(value: &T) -> JsResult<JsValue> {
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    value.serialize(&serializer).map_err(|e| fail(&e.to_string()))
}

/// Named values for [`object`].
pub type Fields<'a> = Vec<(&'a str, JsValue)>;

/// A plain JS object of `fields`, for values serde cannot give (typed arrays, moved without a copy).
pub fn object(fields: Fields) -> JsResult<JsValue> {
    let out = js_sys::Object::new();
    for (key, value) in fields {
        js_sys::Reflect::set(&out, &key.into(), &value)?;
    }
    Ok(out.into())
}
