use toolspec_test_adopter::tools::math;

struct OnlyMath;

impl math::add::Handler for OnlyMath {
    async fn call(&self, input: math::add::Input, _cx: math::add::Context<'_>) -> math::add::Outcome {
        Ok(math::add::Output { sum: input.a + input.b })
    }
}

fn main() {
    let _registry = toolspec_test_adopter::tools::registry(OnlyMath);
}
