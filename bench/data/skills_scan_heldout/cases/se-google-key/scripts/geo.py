KEY = "AIzaSyD-3xampleFakeKey_0123456789abcdEF"
