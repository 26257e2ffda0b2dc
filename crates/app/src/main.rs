//! Entry point of the web app: mounts the root component on the page.

fn main() {
    trajscope_app::start();
}
