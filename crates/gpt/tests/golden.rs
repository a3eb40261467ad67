//! The whole model against PyTorch, natively (see `pytorch/mod.rs`).

mod pytorch;

fn check(name: &str) {
    let (_, bytes) = pytorch::FIXTURES.iter().find(|(n, _)| *n == name).expect("a fixture of that name");
    pytorch::check(bytes);
}

#[test]
fn matches_pytorch_with_bias() {
    check("bias");
}

#[test]
fn matches_pytorch_without_bias() {
    check("nobias");
}

#[test]
fn matches_pytorch_rmsnorm_relu_untied() {
    check("rmsnorm_relu_untied");
}

#[test]
fn matches_pytorch_gelu_tanh_untied() {
    check("gelu_tanh_nobias_untied");
}

#[test]
fn matches_pytorch_with_rotary_positions() {
    check("rope_nobias");
}

#[test]
fn matches_pytorch_with_qk_norm() {
    check("qknorm_rope_nobias");
}

#[test]
fn muon_matches_torch_optim_muon_after_three_steps() {
    pytorch::MUON_FIXTURES.into_iter().for_each(pytorch::check_muon);
}

#[test]
fn sgd_matches_torch_optim_sgd_after_three_steps() {
    pytorch::check_sgd();
}
