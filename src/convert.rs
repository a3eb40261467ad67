//! Values and errors across the JS boundary.

use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::prelude::*;

/// A core error as a JS `Error` carrying the core's message.
pub fn js_error(e: gpt::Error) -> JsError {
    JsError::new(&e.to_string())
}

/// Reads `value` as `T`, naming `what` and the field when it does not fit (a misspelt field, a
/// string where a number belongs, a negative size). It goes through JSON because
/// serde-wasm-bindgen never reports unknown fields.
pub fn from_js<T: DeserializeOwned>(value: JsValue, what: &str) -> Result<T, JsError> {
    let json = js_sys::JSON::stringify(&value)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| JsError::new(&format!("{what} must be an object")))?;
    serde_json::from_str(&json).map_err(|e| JsError::new(&format!("{what}: {e}")))
}

/// `value` as a plain JS object (maps as objects, so the page reads fields by name).
pub fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let serializer = serde_wasm_bindgen::Serializer::new().serialize_maps_as_objects(true);
    value.serialize(&serializer).map_err(|e| JsError::new(&e.to_string()))
}
