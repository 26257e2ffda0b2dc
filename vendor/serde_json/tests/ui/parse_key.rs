use serde_json::json;

fn main() {
    json!({ "".s : true });
}
