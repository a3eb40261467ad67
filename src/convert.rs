//! Values and errors across the JS boundary.

use serde::{de::DeserializeOwned, Serialize};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

/// What every binding returns: a thrown JS `Error` on failure.
pub type JsResult<T> = Result<T, JsValue>;

/// A core error as a JS `Error`: its English message, `words` to say it in the reader's language, and a setting's `field`.
pub fn js_error(e: gpt::Error) -> JsValue {
    let error = js_sys::Error::new(&e.to_string());
    let field = if let gpt::Error::Invalid(invalid) = &e { invalid.field.as_str().into() } else { JsValue::UNDEFINED };
    // Setting properties on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&error, &"words".into(), &to_js(e.words()).unwrap_or_default());
    let _ = js_sys::Reflect::set(&error, &"field".into(), &field);
    error.into()
}

/// Reads `value` as `T`, naming `what` and the field when it does not fit (a misspelt field, a
/// string for a number). Through JSON, as serde-wasm-bindgen never reports unknown fields.
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> JsResult<T> {
    let json = js_sys::JSON::stringify(&value).ok().and_then(|s| s.as_string());
    let json = json.ok_or_else(|| js_sys::Error::new(&format!("{what} must be an object")))?;
    Ok(serde_json::from_str(&json).map_err(|e| js_sys::Error::new(&format!("{what}: {e}")))?)
}

/// [`from_js`] of a value the page typed as `T`.
pub fn read<T: DeserializeOwned + Tsify>(value: Ts<T>, what: &str) -> JsResult<T> {
    from_js(value.into(), what)
}

/// `value` as a plain JS object (maps as objects, so the page reads fields by name).
pub fn to_js<T: Serialize>(value: &T) -> JsResult<JsValue> {
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    Ok(value.serialize(&serializer).map_err(|e| js_sys::Error::new(&e.to_string()))?)
}

/// [`to_js`], as the TypeScript type of `T`.
pub fn ts<T: Serialize + Tsify>(value: &T) -> JsResult<Ts<T>> {
    Ok(Ts::new_unchecked(to_js(value)?))
}
