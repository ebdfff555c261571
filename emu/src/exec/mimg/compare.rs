//! Depth compare (`image_sample_c*`, `image_gather4_c*`): each texel a sample or gather4 reads
//! is replaced by the result of comparing the reference with it before filtering.
//!
//! The rules:
//! - the reference is the z-compare address dword (f32; 32 bits under A16 too), after the
//!   offset and bias dwords and before the derivatives; for a UNORM image it is first clamped
//!   to [0, 1]; an integer (UINT/SINT) format is a guest error;
//! - the compared texel value is the texel's X component as the format gives it (f32), before
//!   DST_SEL; a tap on the border compares the border colour's X;
//! - the result is `reference OP texel` (as D3D and OpenGL define it) for the sampler's
//!   DEPTH_COMPARE_FUNC, 1.0 when true and 0.0 when false; a NaN compares false except under
//!   not-equal and always;
//! - a sample filters the results with the weights it would give the texels and returns the
//!   filtered result in every component DMASK enables (DST_SEL does not apply); gather4
//!   returns the four results in its usual order.

/// SQ_TEX_DEPTH_COMPARE values.
const NEVER: u32 = 0;
const LESS: u32 = 1;
const EQUAL: u32 = 2;
const LESS_EQUAL: u32 = 3;
const GREATER: u32 = 4;
const NOT_EQUAL: u32 = 5;
const GREATER_EQUAL: u32 = 6;

/// `reference OP texel` as 1.0 or 0.0.
pub fn compare(func: u32, reference: f32, texel: f32) -> f32 {
    let pass = match func {
        NEVER => false,
        LESS => reference < texel,
        EQUAL => reference == texel,
        LESS_EQUAL => reference <= texel,
        GREATER => reference > texel,
        NOT_EQUAL => reference != texel,
        GREATER_EQUAL => reference >= texel,
        // ALWAYS
        _ => true,
    };
    if pass {
        1.0
    } else {
        0.0
    }
}
