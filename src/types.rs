//! The TypeScript declarations of the shapes the page passes in and gets back (`types.d.ts`).

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = include_str!("types.d.ts");
