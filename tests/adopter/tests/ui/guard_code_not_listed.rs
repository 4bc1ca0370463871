use toolspec_test_adopter::tools::notes;

struct Strict;

impl notes::delete::Handler for Strict {
    type Note = ();

    async fn call(
        &self,
        _input: notes::delete::Input,
        _loaded: notes::delete::Loaded<Self>,
        _cx: notes::delete::Context<'_>,
    ) -> notes::delete::Outcome {
        Err(notes::delete::Error::ReadOnly.into())
    }

    // `read_only` is a code of the tool, but not one the guard's spec lists.
    async fn owns_note(
        &self,
        _input: &notes::delete::Input,
        _cx: &notes::delete::Context<'_>,
    ) -> notes::delete::owns_note::Outcome<()> {
        Err(notes::delete::owns_note::Error::ReadOnly.into())
    }
}

fn main() {}
